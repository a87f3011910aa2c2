"""Session: one isolated workspace (cwd, environment) in a Runtime."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ._client import Connection
from ._exceptions import ShellportError
from ._models import (
    ToolResult,
    call_params,
    encoded_call_params,
    list_tools,
    parse_tool_result,
    present_params,
)
from ._transports.base import encode_dict

if TYPE_CHECKING:  # for the annotation of Session.runtime only
    from ._runtime import Runtime

__all__ = ["Session"]


class Session:
    """A workspace with its own cwd and environment; tools run inside it.

    Make one with ``Runtime.session()``. ``call`` and ``acall`` are safe to use
    from many threads and tasks at once; tools that need order (persistent
    bash) run their calls one at a time in arrival order.
    """

    def __init__(
        self,
        runtime: Runtime,
        conn: Connection,
        session_id: str,
        cwd: str,
        sandbox: dict[str, Any] | None = None,
    ) -> None:
        self._runtime = runtime  # only handed back by the runtime property
        self._conn = conn
        self._id = session_id
        self._cwd = cwd
        self._sandbox = sandbox
        self._closed = False
        self._prefixes: dict[str, bytes] = {}  # each tool's encoded call params up to its arguments

    @property
    def id(self) -> str:
        """The session id (chosen by the caller, or made by the runtime)."""
        return self._id

    @property
    def cwd(self) -> str:
        """The absolute working directory the session started in."""
        return self._cwd

    @property
    def sandbox(self) -> dict[str, Any] | None:
        """The sandbox in force: ``mode``, ``network``, ``writable``, ``backend``.

        ``None`` when neither the runtime config nor the session asked for
        one (full access). Every ToolResult of a session with a sandbox
        carries the same in ``meta["sandbox"]``.
        """
        return dict(self._sandbox) if self._sandbox is not None else None

    def set_sandbox(self, sandbox: Mapping[str, Any]) -> None:
        """Change the session's sandbox (``{}``: the runtime's default).

        Merged over the runtime config's sandbox, as at creation. Refused with
        SandboxError while the session has a persistent shell open, a
        background task or a call running: those keep the sandbox they
        started with. End them first (``exit`` in the shell, ``bash_kill``),
        or open a new session. Calls made after this returns run under the new
        sandbox.
        """
        result = self._conn.call("session/update", {"session": self._id, "sandbox": dict(sandbox)})
        in_force = result.get("sandbox")
        self._sandbox = dict(in_force) if isinstance(in_force, dict) else None

    def tools(self, format: str = "mcp", *, strict: bool = False) -> list[dict[str, Any]]:
        """The tool definitions for this session (see ``Runtime.tools``).

        The same as the runtime's, except that the descriptions of the tools
        that run commands or change files end with this session's sandbox
        line (where the model may write, whether it has network) rather than
        the runtime default's.
        """
        return list_tools(self._conn, format, strict, self._id)

    @property
    def runtime(self) -> Runtime:
        """The Runtime this session belongs to."""
        return self._runtime

    def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        call_id: str | None = None,
        on_output: Callable[[str], Any] | None = None,
    ) -> ToolResult:
        """Call a tool and block until it answers.

        ``call_id`` is the model's id for the call (its tool-use id); the
        presentation uses it as the terminal id, so a UI can match them.
        A Ctrl-C while waiting cancels the call in the runtime and re-raises
        KeyboardInterrupt. A tool that fails returns a ToolResult; exceptions
        are for protocol errors and a lost runtime.

        ``on_output(text)``, when given, receives each new piece of the
        command's output while it runs (bash, one-shot and persistent; other
        tools never call it), on this thread, all of it before ``call``
        returns: the text the model will read, cleaned the same way. The
        result is exactly what it is without it. If on_output raises, the
        call goes on and it is not called again (the error is logged).
        """
        if on_output is None and call_id is None:
            # A tool called before with a dict: its params prefix is kept
            # (issue 16); encoded_call_params makes it, and does the rest.
            if type(name) is str and type(arguments) is dict:
                prefix = self._prefixes.get(name)
                if prefix is not None:
                    request = prefix + encode_dict(arguments) + b"}"
                    return parse_tool_result(self._conn.call("tools/call", request))
            encoded = encoded_call_params(self._prefixes, self._id, name, arguments)
            if encoded is not None:
                return parse_tool_result(self._conn.call("tools/call", encoded))
        params = call_params(self._id, name, arguments, call_id)
        if on_output is None:
            return parse_tool_result(self._conn.call("tools/call", params))
        params["stream"] = True
        return parse_tool_result(self._conn.call_live("tools/call", params, on_output))

    async def acall(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        call_id: str | None = None,
        on_output: Callable[[str], Any] | None = None,
    ) -> ToolResult:
        """Call a tool from asyncio; cancelling the awaiting task cancels the call.

        ``on_output`` is as for ``call``, run on the event loop; it may be a
        coroutine function (each piece is awaited before the next).
        """
        if on_output is None and call_id is None:
            encoded = encoded_call_params(self._prefixes, self._id, name, arguments)
            if encoded is not None:
                return parse_tool_result(await self._conn.acall("tools/call", encoded))
        params = call_params(self._id, name, arguments, call_id)
        if on_output is None:
            return parse_tool_result(await self._conn.acall("tools/call", params))
        params["stream"] = True
        return parse_tool_result(await self._conn.acall_live("tools/call", params, on_output))

    def present(
        self,
        name: str,
        arguments: Any = None,
        *,
        result: ToolResult | Mapping[str, Any] | None = None,
        call_id: str | None = None,
        output: str | None = None,
    ) -> dict[str, Any]:
        """A call's presentation at every stage, in this session; nothing runs.

        See ``Runtime.present``; a relative ``workdir`` resolves against this
        session's cwd.
        """
        params = present_params(name, arguments, result, call_id, self._id, None, output)
        return self._conn.call("tools/present", params)

    def notices(self) -> list[str]:
        """Return and forget the notices queued for this session (background tasks done)."""
        return self._conn.drain_notices(self._id)

    def close(self) -> None:
        """End the session: the runtime kills everything it started. Safe to call twice.

        Calls of this session that have not started yet (waiting behind a
        persistent bash call) are refused with SessionNotFound and never run;
        running ones are cancelled (Cancelled). close() returns once every
        process the session started is gone. A new session may then reuse
        the id; it shares nothing with this one.

        When the runtime is gone (closed, or its process died and a call
        already raised ProcessExited) the session went with it, and close()
        has nothing left to do: it returns without raising.
        """
        if self._closed:
            return
        self._closed = True
        conn = self._conn
        conn.forget_session(self._id)
        if not conn.usable:
            return
        conn.call("session/close", {"session": self._id})

    async def aclose(self) -> None:
        """close() for asyncio, without blocking the event loop."""
        import asyncio  # loaded already: a coroutine runs only under a loop

        await asyncio.get_running_loop().run_in_executor(None, self.close)

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            self.close()
        except ShellportError:
            if exc is None:
                raise  # else the block's own exception is the one to see

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            await self.aclose()
        except ShellportError:
            if exc is None:
                raise

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<Session {self._id!r} cwd={self._cwd!r} {state}>"
