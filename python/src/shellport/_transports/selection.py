"""Which transport a Runtime opens, from its ``transport=`` argument.

``Runtime(transport=...)`` takes a name (``"auto"``, ``"library"``,
``"process"``), an argv, a ``shellport.remote.Command`` or a transport
instance. ``check_spec`` validates that argument when the Runtime is made;
``open_transport`` turns it into an open transport when the Runtime starts,
and says what the Runtime must check on the handshake. This is the only
place that knows the kinds: a new kind (another remote channel, a sandbox)
adds a branch here and, if its handshake needs checks of its own, a field
to ``Chosen``.

``"auto"`` picks the library when it can be loaded safely in this process
and falls back to the bundled executable. It cannot be when the platform
has none (musl, golang/go#54805), when a parent process loaded it before
fork(), or under an address-space limit (``ulimit -v``, RLIMIT_AS): the Go
runtime reserves address space for its threads, and when the kernel refuses,
``runtime/cgo: pthread_create failed`` aborts the whole Python process,
where the executable merely exits and raises ProcessExited.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

from .. import _native
from .._debug import log
from .._exceptions import LibraryNotFound, TransportError
from .._version import __version__
from .base import BaseTransport

if TYPE_CHECKING:
    from ..remote._command import Command

__all__ = ["Chosen", "TransportSpec", "check_spec", "open_transport"]

TransportSpec = Union[str, Sequence[str], BaseTransport, "Command"]
NAMES = ("auto", "library", "process")


@dataclass(frozen=True)
class Chosen:
    """An open transport and what the Runtime checks on its handshake."""

    transport: BaseTransport
    #: The package's own native files: their version must equal the package's.
    bundled: bool = False
    #: The runtime runs on this host: sessions start from os.environ.
    host: bool = False
    #: A shellport.remote Command: its version check and its explanations.
    command: Command | None = None


def _is_command(spec: Any) -> bool:
    """Whether spec is a shellport.remote Command.

    shellport.remote loads on first use (issue 16); until it has, no
    Command exists, so importing it just to check would only cost time.
    """
    module = sys.modules.get("shellport.remote._command")
    return module is not None and isinstance(spec, module.Command)


def check_spec(spec: Any) -> str | list[str] | BaseTransport | Command:
    """Validate a ``transport=`` argument; raise ValueError or TypeError naming it."""
    if isinstance(spec, BaseTransport):
        return spec
    if _is_command(spec):
        command: Command = spec
        return command
    if isinstance(spec, str):
        if spec not in NAMES:
            raise ValueError(
                f"transport={spec!r} is not one shellport knows: use 'auto', 'library', "
                "'process', a command line as a list of strings, or a transport instance"
            )
        return spec
    if isinstance(spec, Sequence) and spec and all(isinstance(a, (str, os.PathLike)) for a in spec):
        return [os.fspath(a) for a in spec]
    raise TypeError(
        "transport must be 'auto', 'library', 'process', a non-empty list of strings "
        "(a command that speaks the protocol on stdio), a shellport.remote.Command, or a "
        f"transport instance; got {spec!r}"
    )


def open_transport(
    spec: str | list[str] | BaseTransport | Command,
    settings: _native.Settings,
    *,
    library_path: str | os.PathLike[str] | None = None,
    binary_path: str | os.PathLike[str] | None = None,
    trust_env: bool = True,
) -> Chosen:
    """Open the transport spec names (spec as check_spec returned it)."""
    if isinstance(spec, BaseTransport):
        return Chosen(spec)
    if isinstance(spec, list):
        from .stdio import StdioTransport

        return Chosen(StdioTransport(spec))
    if _is_command(spec):
        assert not isinstance(spec, str)  # for mypy: a Command
        from .stdio import StdioTransport

        transport = StdioTransport(spec.argv)
        transport.name = spec.platform
        return Chosen(transport, command=spec)
    choice = spec
    if choice == "auto" and settings.transport is not None:
        choice = settings.transport
        log.debug("transport 'auto': %s=%s", _native.ENV_TRANSPORT, choice)
    if choice == "library":
        return _library(library_path, settings)
    if choice == "process":
        return _process(binary_path, settings, trust_env)
    reason = library_unsafe()
    if reason is None:
        try:
            return _library(library_path, settings)
        except (LibraryNotFound, TransportError) as exc:
            if library_path is not None or settings.library_path is not None:
                raise  # the caller named a library: say why it cannot be used
            reason = str(exc)
    log.debug("transport 'auto': the process transport, as the library cannot be used: %s", reason)
    return _process(binary_path, settings, trust_env)


def library_unsafe() -> str | None:
    """Why 'auto' must not load the library in this process, or None."""
    from . import cdll  # loads on first use, as every transport (issue 16)

    reason = cdll.inherited_reason() or _native.library_supported()
    if reason is not None:
        return reason
    limit = address_space_limit()
    if limit is not None:
        return (
            f"this process runs under an address-space limit (RLIMIT_AS, ulimit -v) of "
            f"{limit} bytes, under which the Go runtime's threads can fail to start and abort "
            "the whole process"
        )
    return None


def address_space_limit() -> int | None:
    """The soft RLIMIT_AS of this process in bytes, or None when there is none."""
    if sys.platform == "win32":  # pragma: no cover - shellport ships no Windows files
        return None
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY else soft


def _library(explicit: str | os.PathLike[str] | None, settings: _native.Settings) -> Chosen:
    from . import cdll

    reason = cdll.inherited_reason() or _native.library_supported()
    if reason is not None:
        raise TransportError(f"the library transport cannot be used: {reason}")
    found = _native.find_library(explicit, settings)
    limit = address_space_limit()
    if limit is not None:
        log.debug(
            "loading the library under RLIMIT_AS=%d: if the Go runtime cannot start its "
            "threads, 'runtime/cgo: pthread_create failed' aborts this process",
            limit,
        )
    return Chosen(cdll.CDLLTransport(found.path), bundled=found.bundled, host=True)


def _process(
    explicit: str | os.PathLike[str] | None, settings: _native.Settings, trust_env: bool
) -> Chosen:
    found = _native.find_binary(explicit, settings)
    argv = [found.path, "serve"]
    if found.bundled:
        argv += ["--expect-version", __version__]
    env = None
    if not trust_env:
        # The runtime reads SHELLPORT_SPAWN_HELPER itself; a child process
        # is the one place Python can keep it from seeing the variable.
        env = {k: v for k, v in os.environ.items() if k != _native.ENV_SPAWN_HELPER}
    from .stdio import StdioTransport

    return Chosen(StdioTransport(argv, env=env), bundled=found.bundled, host=True)
