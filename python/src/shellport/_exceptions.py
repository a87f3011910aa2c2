"""The exceptions shellport raises.

Everything shellport raises on purpose derives from ``ShellportError``::

    ShellportError
    ├── TransportError            the runtime cannot be reached or answered badly
    │   ├── LibraryNotFound       the shared library is missing or will not load
    │   ├── BinaryNotFound        the executable is missing or will not start
    │   ├── ProcessExited         the runtime process ended (exit code, stderr tail)
    │   ├── ProtocolError         a message broke the protocol
    │   ├── VersionMismatch       the native files and the package disagree
    │   └── TransportClosed       the Runtime was closed, or inherited across fork()
    └── RPCError                  the runtime refused a request (code, message, data)
        ├── ConfigError           -32005 the runtime config is invalid
        ├── Cancelled             -32800 the request was cancelled
        ├── InternalError         -32603 the runtime failed (a tool panicked)
        ├── InvalidParams         -32602 bad parameters (relative cwd, bad shape)
        ├── MessageTooLarge       -32004 a message exceeded the size limit
        ├── MethodNotFound        -32601 the runtime has no such method
        ├── SandboxError          -32006 a session's sandbox cannot be applied
        ├── SessionNotFound       -32001 no session with that id
        ├── ShutDown              -32003 the runtime was shut down
        └── UnknownTool           -32002 no tool with that name

A tool call that fails is not an exception: a command that exits non-zero, or
arguments the tool rejects, come back as a ``ToolResult`` (``is_error`` marks
the latter). ``RPCError`` is for misuse of the protocol itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "BinaryNotFound",
    "Cancelled",
    "ConfigError",
    "InternalError",
    "InvalidParams",
    "LibraryNotFound",
    "MessageTooLarge",
    "MethodNotFound",
    "ProcessExited",
    "ProtocolError",
    "RPCError",
    "SandboxError",
    "SessionNotFound",
    "ShellportError",
    "ShutDown",
    "TransportClosed",
    "TransportError",
    "UnknownTool",
    "VersionMismatch",
]


class ShellportError(Exception):
    """Base class of every exception shellport raises on purpose."""


class TransportError(ShellportError):
    """The runtime could not be reached, or what came back was unusable."""


class LibraryNotFound(TransportError):
    """The shared library is missing, is for another platform, or failed to load."""


class BinaryNotFound(TransportError):
    """The runtime executable is missing, is for another platform, or failed to start."""


class ProcessExited(TransportError):
    """The runtime process ended while the Runtime still needed it.

    ``returncode`` is its exit status (negative for a signal, ``None`` if it
    could not be collected) and ``stderr`` the last part of what it wrote to
    standard error.
    """

    def __init__(self, message: str, *, returncode: int | None = None, stderr: str = "") -> None:
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr


class ProtocolError(TransportError):
    """A message from the runtime was not valid JSON-RPC, or not what was asked for."""


class VersionMismatch(TransportError):
    """The bundled native files report a version other than the package's."""


class TransportClosed(TransportError):
    """The Runtime was closed, or was inherited by a forked child that cannot use it."""


class RPCError(ShellportError):
    """The runtime answered a request with a JSON-RPC error.

    ``code`` is the JSON-RPC error code, ``message`` the runtime's sentence and
    ``data`` whatever extra detail it attached (often ``None``).
    """

    code: int = 0

    def __init__(self, message: str, *, code: int | None = None, data: Any = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.data = data


class MethodNotFound(RPCError):
    """The runtime has no such method (a client and runtime of different versions)."""

    code = -32601


class InvalidParams(RPCError):
    """The request's parameters were wrong: a relative cwd, a misspelt field, a bad shape."""

    code = -32602


class InternalError(RPCError):
    """The runtime failed while answering (for example a tool panicked); it keeps serving."""

    code = -32603


class SessionNotFound(RPCError):
    """The request named a session that does not exist (never opened, or closed)."""

    code = -32001


class UnknownTool(RPCError):
    """The call named a tool that is not mounted in this runtime's profile."""

    code = -32002


class ShutDown(RPCError):
    """The runtime was shut down and takes no more calls."""

    code = -32003


class MessageTooLarge(RPCError):
    """A message exceeded the runtime's size limit; the runtime keeps serving."""

    code = -32004


class ConfigError(RPCError):
    """The runtime config was rejected (unknown profile, misspelt key, bad limit)."""

    code = -32005


class SandboxError(RPCError):
    """A session's sandbox cannot be applied.

    This machine cannot enforce what was asked (no Landlock, an old kernel;
    the message says what is missing), or ``Session.set_sandbox`` was called
    while the session had a persistent shell open, a background task or a
    call running under its current sandbox.
    """

    code = -32006


class Cancelled(RPCError):
    """The request was cancelled before it finished."""

    code = -32800


# The one table from JSON-RPC error codes to exception classes. Codes not
# listed (parse error, invalid request, future codes) become plain RPCError.
_BY_CODE: dict[int, type[RPCError]] = {
    cls.code: cls
    for cls in (
        MethodNotFound,
        InvalidParams,
        InternalError,
        SessionNotFound,
        UnknownTool,
        ShutDown,
        MessageTooLarge,
        ConfigError,
        SandboxError,
        Cancelled,
    )
}


def _rpc_error(error: Mapping[str, Any]) -> RPCError:
    """Build the exception for a JSON-RPC error object."""
    code = error.get("code")
    message = error.get("message")
    if not isinstance(code, int) or isinstance(code, bool):
        code = -32603
    if not isinstance(message, str) or not message:
        message = f"the runtime answered with error code {code} and no message"
    cls = _BY_CODE.get(code, RPCError)
    return cls(message, code=code, data=error.get("data"))
