"""shellport: bash and str_replace_editor for Python agent harnesses.

One Go runtime serves the tools, loaded into this process as a shared library
or run as a child process (locally, or inside a sandbox through ``docker exec
-i``)::

    import shellport

    with shellport.Runtime() as rt:
        tools = rt.tools(format="anthropic")      # hand these to the model
        with rt.session(cwd="/abs/workspace") as s:
            r = s.call("bash", {"command": "pytest -q", "description": "Run the tests"})
            print(r.text, r.meta.get("exitCode"))

Environment variables (all ignored with ``Runtime(trust_env=False)``):
``SHELLPORT_LIBRARY_PATH``, ``SHELLPORT_BINARY_PATH``, ``SHELLPORT_TRANSPORT``
(``library`` | ``process``) and ``SHELLPORT_DEBUG`` (``1`` | ``wire``). The
package logs through ``logging``: the ``shellport`` logger, and
``shellport.wire`` for every protocol frame, both at DEBUG.
"""

import typing as _typing

from ._exceptions import (
    BinaryNotFound,
    Cancelled,
    ConfigError,
    InternalError,
    InvalidParams,
    LibraryNotFound,
    MessageTooLarge,
    MethodNotFound,
    ProcessExited,
    ProtocolError,
    RPCError,
    SandboxError,
    SessionNotFound,
    ShellportError,
    ShutDown,
    TransportClosed,
    TransportError,
    UnknownTool,
    VersionMismatch,
)
from ._models import ToolResult
from ._runtime import Runtime
from ._session import Session
from ._transports import BaseTransport
from ._version import __version__

__all__ = [
    "__version__",
    "BaseTransport",
    "BinaryNotFound",
    "Cancelled",
    "CDLLTransport",
    "ConfigError",
    "InternalError",
    "InvalidParams",
    "LibraryNotFound",
    "MessageTooLarge",
    "MethodNotFound",
    "MockTransport",
    "ProcessExited",
    "ProtocolError",
    "remote",
    "RPCError",
    "Runtime",
    "SandboxError",
    "Session",
    "SessionNotFound",
    "ShellportError",
    "ShutDown",
    "StdioTransport",
    "ToolResult",
    "TransportClosed",
    "TransportError",
    "UnknownTool",
    "vendors",
    "VersionMismatch",
]

# shellport.remote and shellport.vendors load on first use: most programs
# need neither, and together they were most of the cold import (issue 16).
# So do the transports: a program uses one, and ctypes, subprocess or the
# mock's inspect are milliseconds each.
_LAZY = ("remote", "vendors")
_LAZY_TRANSPORTS = ("CDLLTransport", "MockTransport", "StdioTransport")

if _typing.TYPE_CHECKING:
    from . import remote, vendors
    from ._transports import CDLLTransport, MockTransport, StdioTransport


def __getattr__(name: str) -> object:
    import importlib

    if name in _LAZY:
        return importlib.import_module(f".{name}", __name__)
    if name in _LAZY_TRANSPORTS:
        cls = getattr(importlib.import_module("._transports", __name__), name)
        cls.__module__ = "shellport"  # as for every public class below
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | set(_LAZY_TRANSPORTS))


# Present every public class as shellport.X rather than shellport._private.X.
for _name in __all__:
    _obj = globals().get(_name)
    if isinstance(_obj, type):
        _obj.__module__ = "shellport"
del _name, _obj
