"""inspect_ai sandbox and model tools backed by shellport.

Installing ``shellport[inspect-ai]`` registers the sandbox ``"shellport"``
through inspect's entry points, so a Task only names it; ``tools()`` gives
the model shellport's tools, run in that sandbox::

    from inspect_ai import Task
    from inspect_ai.solver import generate, use_tools
    from shellport.integrations.inspect_ai import tools

    Task(dataset=..., solver=[use_tools(tools()), generate()], scorer=..., sandbox="shellport")

Each sample gets a fresh working directory (``mktemp -d``, removed after the
sample) on the machine the runtime runs on, or ``cwd`` from the sandbox
config (``sandbox=("shellport", ShellportSandboxConfig(...))``): the
transport (``"auto"``, or an argv such as ``["docker", "exec", "-i", CTR,
"/opt/shellport", "serve"]``), the directory and environment variables.
``exec``, ``read_file`` and ``write_file`` run through a one-shot bash
session of their own, so they work over any transport; the model's tools run
in a session of the profile ``tools()`` was made for. Closing the sample
kills everything both started.
"""

from __future__ import annotations

import base64
import shlex
from collections.abc import Mapping
from typing import Any, Literal, overload

from .._models import ToolResult
from .._runtime import Runtime
from .._session import Session
from ._common import missing_harness

try:
    import anyio
    import anyio.to_thread
    from inspect_ai.tool import Tool, ToolDef, ToolError, ToolParams
    from inspect_ai.util import (
        ExecResult,
        OutputLimitExceededError,
        SandboxConnection,
        SandboxEnvironment,
        SandboxEnvironmentConfigType,
        SandboxEnvironmentLimits,
        SandboxUserUnsupportedError,
        sandbox,
        sandboxenv,
    )
    from pydantic import BaseModel
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise missing_harness("inspect_ai", "inspect_ai", "inspect-ai") from exc

__all__ = ["ShellportSandboxConfig", "ShellportSandboxEnvironment", "tools"]

#: Longest a sandbox command may run when the caller gives no timeout.
NO_TIMEOUT_MS = 24 * 3600 * 1000
#: Bytes of a file sent in one call: its base64 stays under the 128 KiB a
#: single command-line argument may hold on Linux.
WRITE_CHUNK = 48 * 1024
#: Bytes of a file read back in one call.
READ_CHUNK = 4 * 1024 * 1024
#: What a sandbox operation's bash call says it does, for a UI.
DESCRIPTION = "Run an inspect_ai sandbox operation"


class ShellportSandboxConfig(BaseModel, frozen=True):
    """Config of the ``"shellport"`` sandbox."""

    transport: str | list[str] = "auto"
    """Where the runtime runs: ``auto``, ``library``, ``process`` or an argv."""
    cwd: str | None = None
    """Work in this existing directory (kept after the sample) instead of a fresh one."""
    env: dict[str, str] = {}
    """Environment variables for every command."""

    def __hash__(self) -> int:  # inspect keys sandboxes by their config
        return hash(self.model_dump_json())


@sandboxenv(name="shellport")
class ShellportSandboxEnvironment(SandboxEnvironment):
    """One sample's sandbox: a directory on the runtime's machine and its sessions."""

    def __init__(self, config: ShellportSandboxConfig, runtime: Runtime, session: Session) -> None:
        super().__init__()
        self._config = config
        self._runtime = runtime  # one-shot bash for exec, read_file, write_file
        self._session = session
        self._owns_workdir = config.cwd is None
        self._scratch = ""
        self._user: tuple[str, str] | None = None
        self._tool_sessions: dict[str, tuple[Runtime, Session]] = {}
        self._lock = anyio.Lock()

    @property
    def workdir(self) -> str:
        """The sample's working directory on the runtime's machine."""
        return self._session.cwd

    # --- lifecycle -------------------------------------------------------------------

    @classmethod
    async def sample_init(
        cls, task_name: str, config: SandboxEnvironmentConfigType | None, metadata: dict[str, str]
    ) -> dict[str, SandboxEnvironment]:
        cfg = _sandbox_config(config)
        env: ShellportSandboxEnvironment = await anyio.to_thread.run_sync(cls._open, cfg)
        return {"default": env}

    @classmethod
    async def sample_cleanup(
        cls,
        task_name: str,
        config: SandboxEnvironmentConfigType | None,
        environments: dict[str, SandboxEnvironment],
        interrupted: bool,
    ) -> None:
        for env in environments.values():
            if isinstance(env, ShellportSandboxEnvironment):
                await anyio.to_thread.run_sync(env._close)

    @classmethod
    def config_deserialize(cls, config: dict[str, Any]) -> BaseModel:
        return ShellportSandboxConfig(**config)

    @classmethod
    def _open(cls, cfg: ShellportSandboxConfig) -> ShellportSandboxEnvironment:
        limit = SandboxEnvironmentLimits.MAX_EXEC_OUTPUT_SIZE
        chars = 2 * _b64_len(max(limit, READ_CHUNK)) + 4096
        bash = {"timeoutMs": NO_TIMEOUT_MS, "maxTimeoutMs": NO_TIMEOUT_MS, "maxOutputChars": chars}
        runtime = Runtime({"profile": "oneshot", "tools": {"bash": bash}}, cfg.transport)
        try:
            wanted = 1 if cfg.cwd is not None else 2  # scratch, and the workdir unless given
            with runtime.session("/") as boot:
                made = boot.call("bash", _args("; ".join(["mktemp -d"] * wanted)))
            dirs = made.text.split()
            if made.is_error or made.meta.get("exitCode") != 0 or len(dirs) != wanted:
                raise RuntimeError(f"shellport sandbox: cannot make its directories: {made.text}")
            scratch, workdir = dirs[0], cfg.cwd or dirs[-1]
            env = cls(cfg, runtime, runtime.session(workdir, env=cfg.env))
            env._scratch = scratch
            who = env._session.call("bash", _args("id -un; id -u")).text.split()
            env._user = (who[0], who[1]) if len(who) >= 2 else None
            return env
        except BaseException:
            runtime.close()
            raise

    def _close(self) -> None:
        for runtime, _ in self._tool_sessions.values():
            runtime.close()
        self._tool_sessions.clear()
        doomed = [self._scratch] + ([self.workdir] if self._owns_workdir else [])
        try:
            paths = " ".join(shlex.quote(d) for d in doomed if d)
            _run_script(self._runtime, "/", f"rm -rf -- {paths}")
        finally:
            self._runtime.close()

    # --- the sandbox interface -------------------------------------------------------

    async def exec(
        self,
        cmd: list[str],
        input: str | bytes | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        user: str | None = None,
        timeout: int | None = None,
        timeout_retry: bool = True,
        concurrency: bool = True,
    ) -> ExecResult[str]:
        self._check_user(user)
        q = shlex.quote
        stdin = "/dev/null"
        if input is not None:
            stdin = await self._upload(input.encode() if isinstance(input, str) else input)
        inner = [f"cd -- {q(self._resolve(cwd or '.'))}"]
        inner += [f"export {k}={q(v)}" for k, v in (env or {}).items()]
        inner.append("exec " + shlex.join(cmd))
        limit = SandboxEnvironmentLimits.MAX_EXEC_OUTPUT_SIZE
        tmp = q(self._scratch + "/x.XXXXXX")
        script = f"""o=$(mktemp {tmp}) && e=$(mktemp {tmp}) || exit 97
( {" && ".join(inner)} ) <{q(stdin)} >"$o" 2>"$e"
rc=$?
printf 'exit %s %s %s\\n' "$rc" "$(wc -c <"$o")" "$(wc -c <"$e")"
tail -c {limit} "$o" | base64 | tr -d '\\n'; echo
tail -c {limit} "$e" | base64 | tr -d '\\n'; echo
rm -f -- "$o" "$e" {q(stdin) if input is not None else ""}"""
        timeout_ms = NO_TIMEOUT_MS if timeout is None else max(1, timeout) * 1000
        r = await self._session.acall("bash", _args(script, timeoutMs=timeout_ms))
        if r.meta.get("timedOut") is True:
            raise TimeoutError(f"command timed out after {timeout} seconds: {shlex.join(cmd)}")
        lines = _lines(r, 3)
        _, rc, out_size, err_size = lines[0].split()
        stdout = base64.b64decode(lines[1]).decode("utf-8", errors="replace")
        stderr = base64.b64decode(lines[2]).decode("utf-8", errors="replace")
        if int(out_size) > limit or int(err_size) > limit:
            raise OutputLimitExceededError(
                limit_str=SandboxEnvironmentLimits.MAX_EXEC_OUTPUT_SIZE_STR,
                truncated_output=stdout if int(out_size) > limit else stderr,
            )
        return ExecResult(success=rc == "0", returncode=int(rc), stdout=stdout, stderr=stderr)

    async def write_file(self, file: str, contents: str | bytes) -> None:
        data = contents.encode() if isinstance(contents, str) else contents
        path = shlex.quote(self._resolve(file))
        first = data[:WRITE_CHUNK]
        script = f"""f={path}
if [ -d "$f" ]; then echo directory; exit 0; fi
mkdir -p -- "$(dirname -- "$f")" 2>/dev/null && : >"$f" 2>/dev/null || {{ echo denied; exit 0; }}
printf %s {_b64(first)} | base64 -d >>"$f" && echo ok"""
        state = _lines(await self._session.acall("bash", _args(script)), 1)[0]
        _raise_for(state, file)
        for start in range(WRITE_CHUNK, len(data), WRITE_CHUNK):
            chunk = _b64(data[start : start + WRITE_CHUNK])
            r = await self._session.acall("bash", _args(f"printf %s {chunk} | base64 -d >>{path}"))
            if r.is_error or r.meta.get("exitCode") != 0:
                raise PermissionError(f"cannot write {file}: {r.text}")

    @overload
    async def read_file(self, file: str, text: Literal[True] = True) -> str: ...

    @overload
    async def read_file(self, file: str, text: Literal[False]) -> bytes: ...

    async def read_file(self, file: str, text: bool = True) -> str | bytes:
        path = shlex.quote(self._resolve(file))
        script = f"""f={path}
if [ -d "$f" ]; then echo directory; elif [ ! -e "$f" ]; then echo missing
elif [ ! -r "$f" ]; then echo denied; else printf 'ok %s\\n' "$(wc -c <"$f")"
head -c {READ_CHUNK} "$f" | base64 | tr -d '\\n'; echo; fi"""
        lines = _lines(await self._session.acall("bash", _args(script)), 1)
        _raise_for(lines[0].split()[0], file)
        size = int(lines[0].split()[1])
        if size > SandboxEnvironmentLimits.MAX_READ_FILE_SIZE:
            raise OutputLimitExceededError(
                limit_str=SandboxEnvironmentLimits.MAX_READ_FILE_SIZE_STR, truncated_output=None
            )
        data = base64.b64decode(lines[1])
        while len(data) < size:
            skip = len(data) // READ_CHUNK
            part = f"dd if={path} bs={READ_CHUNK} skip={skip} count=1 2>/dev/null | base64"
            part += " | tr -d '\\n'"
            more = base64.b64decode(_lines(await self._session.acall("bash", _args(part)), 1)[0])
            if not more:
                break  # the file shrank while it was read
            data += more
        return data.decode("utf-8") if text else data

    async def connection(self, *, user: str | None = None) -> SandboxConnection:
        if not isinstance(self._config.transport, str):
            raise NotImplementedError(
                "the shellport sandbox runs through a custom transport; connect to it the way "
                "that transport reaches its machine"
            )
        command = f"cd {shlex.quote(self.workdir)} && bash -l"
        return SandboxConnection(type="shellport", command=command)

    # --- the model's tools -----------------------------------------------------------

    async def tool_session(self, config: Mapping[str, Any]) -> Session:
        """The session the model's tools of this runtime config run in, made on first use."""
        key = repr(sorted(config.items()))
        async with self._lock:
            if key not in self._tool_sessions:
                self._tool_sessions[key] = await anyio.to_thread.run_sync(self._open_tools, config)
            return self._tool_sessions[key][1]

    def _open_tools(self, config: Mapping[str, Any]) -> tuple[Runtime, Session]:
        runtime = Runtime(config, self._config.transport)
        try:
            return runtime, runtime.session(self.workdir, env=self._config.env)
        except BaseException:
            runtime.close()
            raise

    # --- helpers ---------------------------------------------------------------------

    def _resolve(self, path: str) -> str:
        return path if path.startswith("/") else f"{self.workdir.rstrip('/')}/{path}"

    def _check_user(self, user: str | None) -> None:
        if user is None or self._user is None or user in self._user:
            return
        raise SandboxUserUnsupportedError(
            f"the shellport sandbox runs commands as {self._user[0]} only, not as {user!r}"
        )

    async def _upload(self, data: bytes) -> str:
        template = shlex.quote(self._scratch + "/in.XXXXXX")
        made = await self._session.acall("bash", _args(f"mktemp {template}"))
        path = made.text.strip()
        await self.write_file(path, data)
        return path


def tools(profile: str = "persistent", config: Mapping[str, Any] | None = None) -> list[Tool]:
    """shellport's tools for the model, run in the sample's ``"shellport"`` sandbox.

    ``profile`` and ``config`` make the runtime config the tools come from
    (names, descriptions and schemas are shellport's own, as ``tools/list``
    gives them). A failing command is an ordinary result; invalid arguments
    come back to the model as a tool error.
    """
    runtime_config = {**(config or {}), "profile": profile}
    with Runtime(runtime_config) as rt:
        definitions = rt.tools(format="mcp")
    return [_tool(d, runtime_config) for d in definitions]


def _tool(definition: Mapping[str, Any], runtime_config: Mapping[str, Any]) -> Tool:
    name = str(definition["name"])

    async def execute(**arguments: Any) -> str:
        env = sandbox().as_type(ShellportSandboxEnvironment)
        session = await env.tool_session(runtime_config)
        given = {k: v for k, v in arguments.items() if v is not None}
        result = await session.acall(name, given)
        if result.is_error:
            raise ToolError(result.text)
        return result.text

    params = ToolParams.model_validate(definition["inputSchema"])
    description = str(definition["description"])
    return ToolDef(execute, name=name, description=description, parameters=params).as_tool()


def _sandbox_config(config: SandboxEnvironmentConfigType | None) -> ShellportSandboxConfig:
    if config is None:
        return ShellportSandboxConfig()
    if isinstance(config, ShellportSandboxConfig):
        return config
    if isinstance(config, BaseModel):
        return ShellportSandboxConfig(**config.model_dump())
    raise ValueError(
        f"the shellport sandbox takes a ShellportSandboxConfig, not {type(config).__name__} "
        f"{config!r}"
    )


def _args(script: str, **extra: Any) -> dict[str, Any]:
    return {"command": script, "description": DESCRIPTION, **extra}


def _run_script(runtime: Runtime, cwd: str, script: str) -> None:
    with runtime.session(cwd) as s:
        s.call("bash", _args(script))


def _lines(result: ToolResult, count: int) -> list[str]:
    """The first count lines of a sandbox script's output, or an error saying why not."""
    lines = result.text.split("\n")
    if result.is_error or len(lines) < count or not lines[0]:
        raise RuntimeError(f"shellport sandbox: unexpected answer: {result.text[:500]!r}")
    return lines


def _raise_for(state: str, file: str) -> None:
    if state == "directory":
        raise IsADirectoryError(f"{file} is a directory")
    if state == "missing":
        raise FileNotFoundError(f"{file} does not exist")
    if state == "denied":
        raise PermissionError(f"permission denied: {file}")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _b64_len(size: int) -> int:
    return (size + 2) // 3 * 4
