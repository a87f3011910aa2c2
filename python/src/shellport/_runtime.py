"""Runtime: one shellport runtime, reached through the library or a process."""

from __future__ import annotations

import enum
import os
import threading
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, Union

from . import _native
from ._client import Connection
from ._exceptions import (
    LibraryNotFound,
    ProcessExited,
    ProtocolError,
    TransportClosed,
    TransportError,
    VersionMismatch,
)
from ._session import Session
from ._transports import cdll
from ._transports.base import BaseTransport
from ._transports.cdll import CDLLTransport
from ._transports.stdio import StdioTransport
from ._version import __version__
from .remote._command import Command

__all__ = ["Runtime"]

PROTOCOL_VERSION = 1
INITIALIZE_TIMEOUT = 60.0  # seconds; generous for `docker exec` and cold caches

TransportSpec = Union[str, Sequence[str], BaseTransport, Command]
StrPath = Union[str, "os.PathLike[str]"]


class _State(enum.Enum):
    UNOPENED = 1
    OPENED = 2
    CLOSED = 3


class Runtime:
    """A shellport runtime: sessions, tools and the processes they start.

    ``config`` is the runtime config (``{"profile": "persistent", "tools":
    {...}}``). ``transport`` is ``"auto"`` (the shared library when it loads
    safely here, else the bundled executable), ``"library"``, ``"process"``, an
    argv that speaks the protocol on stdio (``["docker", "exec", "-i", ctr,
    "/opt/shellport/shellport", "serve"]``), a ``shellport.remote`` Command
    (``shellport.remote.docker(ctr, install=True)``: the same argv, plus a
    version check and a heartbeat), or a transport instance. ``trust_env=False``
    ignores every ``SHELLPORT_*`` variable; ``library_path`` and
    ``binary_path`` override where the native files are.

    The runtime starts on first use (or on ``with``). Close it with
    ``close()``, ``aclose()`` or a ``with`` / ``async with`` block: that kills
    every process its tools started. A closed Runtime cannot be reopened.
    """

    def __init__(
        self,
        config: Mapping[str, Any] | None = None,
        transport: TransportSpec = "auto",
        *,
        trust_env: bool = True,
        library_path: StrPath | None = None,
        binary_path: StrPath | None = None,
    ) -> None:
        if config is not None and not isinstance(config, Mapping):
            raise TypeError(
                "config must be a mapping (the runtime config as a dict), "
                f"not {type(config).__name__}"
            )
        self._config = dict(config) if config is not None else None
        self._transport_spec = _check_transport(transport)
        self._settings = _native.read_settings(trust_env)
        self._trust_env = trust_env
        self._library_path = library_path
        self._binary_path = binary_path
        self._state = _State.UNOPENED
        self._lock = threading.Lock()
        self._conn: Connection | None = None
        self._info: dict[str, Any] = {}
        # Whether sessions start from this process's current environment:
        # true when the runtime runs on this host (library or bundled
        # executable), false for an argv or transport instance.
        self._host_env = isinstance(self._transport_spec, str)

    # --- what the runtime said about itself ----------------------------------------

    @property
    def version(self) -> str:
        """The runtime's version (from initialize). Starts the runtime if needed."""
        return str(self._opened_info()["serverInfo"]["version"])

    @property
    def profile(self) -> str:
        """The active profile: "oneshot", "persistent", "anthropic" or "openai".

        Starts the runtime if needed.
        """
        return str(self._opened_info()["profile"])

    @property
    def tool_names(self) -> list[str]:
        """Names of the mounted tools, in tools/list order. Starts the runtime if needed."""
        return list(self._opened_info()["tools"])

    @property
    def transport_name(self) -> str:
        """The transport in use: "library", "process", or a custom transport's name.

        Starts the runtime if needed.
        """
        return self._connection().transport.name

    # --- the API -----------------------------------------------------------------

    def session(
        self,
        cwd: StrPath,
        *,
        id: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Session:
        """Open a session in cwd, an absolute path to an existing directory.

        ``id`` picks the session id (letters, digits, ``_-.:``); ``env`` adds
        environment variables for every process the session starts.

        Commands start from this process's environment as it is now, when the
        session is created: a variable deleted from ``os.environ`` before this
        call is gone for them, one added is there, on either transport (the
        package sends ``os.environ`` as the session's ``baseEnv``). ``env`` is
        set over it. Variables whose name or value is not valid UTF-8 cannot
        travel in JSON and are left out. With an argv or a transport instance
        (the runtime may run elsewhere, as with ``docker exec``) nothing is
        sent, and commands see the runtime process's own environment.
        """
        params: dict[str, Any] = {"cwd": os.fspath(cwd)}
        if id is not None:
            params["id"] = id
        if env is not None:
            params["env"] = dict(env)
        conn = self._connection()
        if self._host_env:
            params["baseEnv"] = _host_environment()
        result = conn.call("session/new", params)
        session_id, session_cwd = result.get("session"), result.get("cwd")
        if not isinstance(session_id, str) or not isinstance(session_cwd, str):
            raise ProtocolError(f"session/new answered without a session id and cwd: {result!r}")
        conn.watch_session(session_id)
        return Session(self, session_id, session_cwd)

    def tools(self, format: str = "mcp", *, strict: bool = False) -> list[dict[str, Any]]:
        """The tool definitions to hand to a model.

        ``format`` is "mcp" (name, description, inputSchema), "openai" (Chat
        Completions function tools), "openai-responses" (Responses API
        function tools) or "anthropic" (name, description, input_schema). A
        vendor's own tools are declared as its API takes them: in the
        anthropic profile ``{"type": "bash_20250124", "name": "bash"}`` and
        the text editor's declaration for "anthropic", in the openai profile
        ``{"type": "shell"}`` and ``{"type": "apply_patch"}`` for
        "openai-responses". ``strict=True`` (not for "mcp") asks for strict
        schema validation: OpenAI's strict mode (every argument required,
        optional ones nullable) or Anthropic's (``"strict": true``, objects
        closed, optional arguments kept optional).
        """
        params: dict[str, Any] = {"format": format}
        if strict:
            params["strict"] = True
        result = self._connection().call("tools/list", params)
        tools = result.get("tools")
        if not isinstance(tools, list):
            raise ProtocolError(f"tools/list answered without a tools list: {result!r:.200}")
        return tools

    def close(self) -> None:
        """Shut the runtime down, killing every process it started. Safe to call twice."""
        conn = self._conn
        if conn is not None and conn.forked:
            # Never wait on a lock a parent thread may have held at fork().
            self._state = _State.CLOSED
            conn.close()
            return
        with self._lock:
            if self._state is _State.CLOSED:
                return
            self._state = _State.CLOSED
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    async def aclose(self) -> None:
        """close() for asyncio, without blocking the event loop."""
        import asyncio  # loaded already: a coroutine runs only under a loop

        await asyncio.get_running_loop().run_in_executor(None, self.close)

    # --- lifecycle -----------------------------------------------------------------

    def _connection(self) -> Connection:
        conn = self._conn
        if conn is not None:
            conn.check()  # before any lock: see Connection.check
            return conn
        with self._lock:
            if self._state is _State.CLOSED:
                raise TransportClosed(
                    "This Runtime is closed and cannot be used again; create a new Runtime."
                )
            if self._conn is None:
                self._conn, self._info = self._open()
                self._state = _State.OPENED
            return self._conn

    def _opened_info(self) -> dict[str, Any]:
        self._connection()
        return self._info

    def _open(self) -> tuple[Connection, dict[str, Any]]:
        transport, check_version = self._make_transport()
        conn = Connection(transport, debug_wire=self._settings.debug_wire)
        try:
            info = self._initialize(conn, check_version)
        except BaseException:
            conn.close(shutdown_timeout=1.0)
            raise
        heartbeat = info.get("heartbeatMs")
        if isinstance(heartbeat, int) and not isinstance(heartbeat, bool) and heartbeat > 0:
            # The runtime ends itself after that long without a message.
            conn.start_heartbeat(heartbeat / 1000)
        return conn, info

    def _initialize(self, conn: Connection, check_version: bool) -> dict[str, Any]:
        params: dict[str, Any] = {
            "protocolVersion": PROTOCOL_VERSION,
            "clientInfo": {"name": "shellport-python", "version": __version__},
        }
        if self._config is not None:
            params["config"] = self._config
        try:
            info = conn.call("initialize", params, timeout=INITIALIZE_TIMEOUT)
        except ProcessExited as exc:
            spec = self._transport_spec
            if isinstance(spec, Command):
                clearer = spec._explain(exc)
                if clearer is not None:
                    raise clearer from exc
            if check_version and "expects version" in exc.stderr:
                raise VersionMismatch(
                    f"the bundled shellport executable refused to serve shellport {__version__}: "
                    f"{exc.stderr.strip()}. Reinstall shellport so its native files match."
                ) from exc
            raise
        server = info.get("serverInfo")
        if (
            info.get("protocolVersion") != PROTOCOL_VERSION
            or not isinstance(server, dict)
            or not isinstance(server.get("version"), str)
            or not isinstance(info.get("profile"), str)
            or not isinstance(info.get("tools"), list)
        ):
            raise ProtocolError(
                "the runtime's answer to initialize is not protocol version "
                f"{PROTOCOL_VERSION}: {info!r:.300}"
            )
        if isinstance(self._transport_spec, Command):
            self._transport_spec._check_version(server["version"])
        if check_version and server["version"] != __version__:
            raise VersionMismatch(
                f"the bundled native files are shellport {server['version']}, but the Python "
                f"package is shellport {__version__}; reinstall shellport so they match."
            )
        return info

    def _make_transport(self) -> tuple[BaseTransport, bool]:
        """Build the transport; the flag says whether its version must match ours."""
        spec = self._transport_spec
        if isinstance(spec, BaseTransport):
            return spec, False
        if isinstance(spec, list):
            return StdioTransport(spec), False
        if isinstance(spec, Command):
            transport = StdioTransport(spec.argv)
            transport.name = spec.platform
            return transport, False
        choice = spec
        if choice == "auto" and self._settings.transport is not None:
            choice = self._settings.transport
        if choice == "library":
            return self._library_transport()
        if choice == "process":
            return self._process_transport()
        if _native.library_supported() is None and cdll.inherited_reason() is None:
            overridden = self._library_path is not None or self._settings.library_path is not None
            try:
                return self._library_transport()
            except (LibraryNotFound, TransportError):
                if overridden:
                    raise  # the caller named a library: say why it cannot be used
                # auto: without a usable bundled library, the executable serves
        return self._process_transport()

    def _library_transport(self) -> tuple[BaseTransport, bool]:
        reason = cdll.inherited_reason() or _native.library_supported()
        if reason is not None:
            raise TransportError(f"the library transport cannot be used: {reason}.")
        found = _native.find_library(self._library_path, self._settings)
        return CDLLTransport(found.path), found.bundled

    def _process_transport(self) -> tuple[BaseTransport, bool]:
        found = _native.find_binary(self._binary_path, self._settings)
        argv = [found.path, "serve"]
        if found.bundled:
            argv += ["--expect-version", __version__]
        env = None
        if not self._trust_env:
            # The runtime reads SHELLPORT_SPAWN_HELPER itself; a child process
            # is the one place Python can keep it from seeing the variable.
            env = {k: v for k, v in os.environ.items() if k != _native.ENV_SPAWN_HELPER}
        return StdioTransport(argv, env=env), found.bundled

    # --- used by Session -----------------------------------------------------------

    def _notices(self, session_id: str) -> list[str]:
        conn = self._conn
        if conn is None:
            return []
        return conn.drain_notices(session_id)

    def _close_session(self, session_id: str) -> None:
        if self._state is _State.CLOSED:
            return  # closing the runtime ended every session
        conn = self._connection()
        conn.forget_session(session_id)
        conn.call("session/close", {"session": session_id})

    # --- context managers ----------------------------------------------------------

    def __enter__(self) -> Runtime:
        self._connection()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> Runtime:
        import asyncio  # loaded already: a coroutine runs only under a loop

        await asyncio.get_running_loop().run_in_executor(None, self._connection)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        state = self._state.name.lower()
        conn = self._conn
        where = f" transport={conn.transport.name!r}" if conn is not None else ""
        return f"<Runtime {state}{where}>"


def _host_environment() -> dict[str, str]:
    """This process's environment now, as session/new's baseEnv.

    os.environ holds undecodable bytes as lone surrogates (surrogateescape);
    JSON cannot carry them and the runtime refuses strings that are not
    valid Unicode, so such variables are left out.
    """
    out: dict[str, str] = {}
    for name, value in os.environ.items():
        try:
            name.encode("utf-8")
            value.encode("utf-8")
        except UnicodeEncodeError:
            continue
        if name and "=" not in name and "\0" not in value:
            out[name] = value
    return out


def _check_transport(spec: Any) -> str | list[str] | BaseTransport | Command:
    if isinstance(spec, (BaseTransport, Command)):
        return spec
    if isinstance(spec, str):
        if spec not in ("auto", "library", "process"):
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
