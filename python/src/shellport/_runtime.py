"""Runtime: one shellport runtime, reached through the library or a process."""

from __future__ import annotations

import contextlib
import enum
import os
import sys
import threading
import warnings
from collections.abc import Mapping
from types import TracebackType
from typing import Any, Union

from . import _native
from ._client import Connection
from ._debug import log
from ._exceptions import ProcessExited, ProtocolError, TransportClosed, VersionMismatch
from ._models import ToolResult, list_tools, present_params
from ._session import Session
from ._transports.base import CLOSED
from ._transports.selection import Chosen, TransportSpec, check_spec, open_transport
from ._version import __version__

__all__ = ["Runtime"]

PROTOCOL_VERSION = 1
INITIALIZE_TIMEOUT = 60.0  # seconds; generous for `docker exec` and cold caches

StrPath = Union[str, "os.PathLike[str]"]


class _State(enum.Enum):
    UNOPENED = 1
    OPENED = 2
    CLOSED = 3


class Runtime:
    """A shellport runtime: sessions, tools and the processes they start.

    ``config`` is the runtime config (``{"profile": "persistent", "tools":
    {...}}``). ``transport`` is ``"auto"`` (the shared library when it loads
    safely here, else the bundled executable: not on musl, not after fork(),
    not under an address-space limit such as ``ulimit -v``, where an explicit
    ``"library"`` can abort the process with ``runtime/cgo: pthread_create
    failed`` or ``runtime: cannot allocate memory``), ``"library"``,
    ``"process"``, an
    argv that speaks the protocol on stdio (``["docker", "exec", "-i", ctr,
    "/opt/shellport/shellport", "serve"]``), a ``shellport.remote`` Command
    (``shellport.remote.docker(ctr, install=True)``: the same argv, plus a
    version check and a heartbeat), or a transport instance. ``trust_env=False``
    ignores every ``SHELLPORT_*`` variable; ``library_path`` and
    ``binary_path`` override where the native files are.

    The runtime starts on first use (or on ``with``). Close it with
    ``close()``, ``aclose()`` or a ``with`` / ``async with`` block: that kills
    every process its tools started. A closed Runtime cannot be reopened. A
    started Runtime that is garbage-collected unclosed warns with
    ResourceWarning (as an unclosed file does) and is closed then.
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
        self._transport_spec = check_spec(transport)
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
        # executable), false for an argv, a Command or a transport instance.
        self._host_env = False

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
    def sandbox(self) -> dict[str, Any]:
        """What this machine can enforce, and the runtime's default sandbox.

        From initialize: ``backend`` ("landlock", "seatbelt" or "none"),
        ``landlockAbi``, ``seccomp``, ``scopes``, ``files`` (how the editor is
        held to a sandbox), ``reason`` (what is missing) and ``default`` (the
        sandbox of sessions that ask for none). Starts the runtime if needed.
        """
        info = self._opened_info().get("sandbox")
        return dict(info) if isinstance(info, dict) else {}

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
        sandbox: Mapping[str, Any] | None = None,
    ) -> Session:
        """Open a session in cwd, an absolute path to an existing directory.

        ``id`` picks the session id (letters, digits, ``_-.:``); ``env`` adds
        environment variables for every process the session starts.

        ``sandbox`` confines what the session's commands and file tools may
        write and reach, merged over the runtime config's ``sandbox``, for
        example ``{"mode": "workspace-write", "writableRoots": ["/cache"],
        "network": False}`` (modes: "read-only", "workspace-write",
        "full-access"). A session may only narrow the runtime's sandbox unless
        the config sets ``allowWidening``. If this machine cannot enforce it,
        SandboxError is raised; nothing ever runs unconfined silently.
        ``Session.sandbox`` says what is in force.

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
        if sandbox is not None:
            params["sandbox"] = dict(sandbox)
        conn = self._connection()
        if self._host_env:
            params["baseEnv"] = _host_environment()
        result = conn.call("session/new", params)
        session_id, session_cwd = result.get("session"), result.get("cwd")
        if not isinstance(session_id, str) or not isinstance(session_cwd, str):
            raise ProtocolError(f"session/new answered without a session id and cwd: {result!r}")
        conn.watch_session(session_id)
        in_force = result.get("sandbox")
        return Session(
            self,
            conn,
            session_id,
            session_cwd,
            dict(in_force) if isinstance(in_force, dict) else None,
        )

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
        closed, optional arguments kept optional). With a sandbox in the
        runtime config, the descriptions of the tools that run commands or
        change files end with one line saying where the model may write and
        whether it has network; ``Session.tools`` words it for one session.
        """
        return list_tools(self._connection(), format, strict, None)

    def present(
        self,
        name: str,
        arguments: Any = None,
        *,
        result: ToolResult | Mapping[str, Any] | None = None,
        call_id: str | None = None,
        session: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        output: str | None = None,
    ) -> dict[str, Any]:
        """Render a call's presentation at every stage, without running anything.

        Returns ``{"call": ..., "running": ..., "completed": ...}``: the ACP
        tool-call card a UI draws when the model asks for the call, the
        update for a piece of live output (``output``) while it runs, and —
        when ``result`` (a ToolResult or a logged tools/call result) is given
        — the completed card, exactly as the call's own result presents it.
        ``session`` (or ``cwd``, for a session that is gone) is where a
        relative ``workdir`` resolves. Arguments of any shape give a card (a
        generic one when the tool cannot read them); it raises only for a
        lost runtime or an unknown session.
        """
        params = present_params(name, arguments, result, call_id, session, cwd, output)
        return self._connection().call("tools/present", params)

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
            log.debug("the runtime over the %s transport is closed", conn.transport.name)

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
                raise TransportClosed(CLOSED)
            if self._conn is None:
                self._conn, self._info = self._open()
                self._state = _State.OPENED
            return self._conn

    def _opened_info(self) -> dict[str, Any]:
        self._connection()
        return self._info

    def _open(self) -> tuple[Connection, dict[str, Any]]:
        chosen = open_transport(
            self._transport_spec,
            self._settings,
            library_path=self._library_path,
            binary_path=self._binary_path,
            trust_env=self._trust_env,
        )
        conn = Connection(chosen.transport)
        try:
            info = self._initialize(conn, chosen)
        except BaseException:
            conn.close(shutdown_timeout=1.0)
            raise
        self._host_env = chosen.host
        heartbeat = info.get("heartbeatMs")
        if isinstance(heartbeat, int) and not isinstance(heartbeat, bool) and heartbeat > 0:
            # The runtime ends itself after that long without a message.
            conn.start_heartbeat(heartbeat / 1000)
        log.debug(
            "runtime %s started over the %s transport, profile %s",
            info["serverInfo"]["version"],
            chosen.transport.name,
            info["profile"],
        )
        return conn, info

    def _initialize(self, conn: Connection, chosen: Chosen) -> dict[str, Any]:
        params: dict[str, Any] = {
            "protocolVersion": PROTOCOL_VERSION,
            "clientInfo": {"name": "shellport-python", "version": __version__},
        }
        if self._config is not None:
            params["config"] = self._config
        try:
            info = conn.call("initialize", params, timeout=INITIALIZE_TIMEOUT)
        except ProcessExited as exc:
            if chosen.command is not None:
                clearer = chosen.command._explain(exc)
                if clearer is not None:
                    raise clearer from exc
            if chosen.bundled and "expects version" in exc.stderr:
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
        if chosen.command is not None:
            chosen.command._check_version(server["version"])
        if chosen.bundled and server["version"] != __version__:
            raise VersionMismatch(
                f"the bundled native files are shellport {server['version']}, but the Python "
                f"package is shellport {__version__}; reinstall shellport so they match."
            )
        return info

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

    def __del__(self) -> None:
        # Like an unclosed file: say so, then release. Only a started
        # Runtime holds anything; its reader thread would keep the runtime
        # and every process it started alive until the interpreter exits.
        conn = getattr(self, "_conn", None)
        if conn is None or getattr(self, "_state", None) is not _State.OPENED:
            return
        message = f"unclosed {self!r}"
        self._state = _State.CLOSED
        self._conn = None
        try:
            warnings.warn(message, ResourceWarning, source=self, stacklevel=2)
        finally:  # an error filter (-W error::ResourceWarning) raises here
            _close_later(conn)

    def __repr__(self) -> str:
        state = self._state.name.lower()
        conn = self._conn
        where = f" transport={conn.transport.name!r}" if conn is not None else ""
        return f"<Runtime {state}{where}>"


def _close_later(conn: Connection) -> None:
    """Close an unclosed Runtime's connection on a thread of its own.

    A finalizer runs wherever the garbage collector does, perhaps on a
    thread that holds one of the connection's or the transport's locks;
    closing there could wait on that lock forever.
    """
    if conn.closing or sys.is_finalizing():
        return  # closed already, or at exit, where the exit hook closed it
    # RuntimeError: interpreter shutdown, where the exit hook closes every connection.
    with contextlib.suppress(RuntimeError):
        threading.Thread(
            target=conn.close, kwargs={"shutdown_timeout": 2.0}, name="shellport-unclosed"
        ).start()


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
