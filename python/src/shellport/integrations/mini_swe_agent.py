"""mini-swe-agent environment backed by shellport.

``ShellportEnvironment`` takes the place of mini-swe-agent's local or docker
environment. It is built from keyword config like them, and only ``cwd`` is
needed::

    from minisweagent.agents.default import DefaultAgent
    from shellport.integrations.mini_swe_agent import ShellportEnvironment

    env = ShellportEnvironment(cwd="/abs/repo", timeout=60)
    agent = DefaultAgent(model, env, **agent_config)

or by dotted path in a mini-swe-agent config::

    environment:
      environment_class: shellport.integrations.mini_swe_agent.ShellportEnvironment
      cwd: /abs/repo

Every environment is one shellport session in ``cwd`` with ``env`` set. The
default profile is ``persistent``: a ``cd`` or an ``export`` in one step is
still there in the next. ``transport`` is any shellport transport, including
an argv such as ``["docker", "exec", "-i", CONTAINER, "/opt/shellport",
"serve"]``. ``execute`` returns ``output`` and ``returncode`` the way the
harness's own environments do; a timeout comes back as the harness's own
timeout (``subprocess.TimeoutExpired``, in ``exception_info``), and the
output starting with ``COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`` raises
``Submitted``. ``cleanup()`` (or garbage collection) kills everything the
session started.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from typing import Any

from .._models import ToolResult
from .._runtime import Runtime
from .._session import Session
from ._common import call_arguments, exit_code, missing_harness, strip_exit_marker

try:
    from minisweagent.exceptions import Submitted
    from minisweagent.utils.serialize import recursive_merge
    from pydantic import BaseModel
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise missing_harness("mini_swe_agent", "mini-swe-agent", "mini-swe-agent") from exc

__all__ = ["ShellportEnvironment", "ShellportEnvironmentConfig"]

#: The first output line that ends a mini-swe-agent run.
SUBMIT_MARKER = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
#: What a bash call of the one-shot profile says it does, for a UI.
DESCRIPTION = "Run a mini-swe-agent action"


class ShellportEnvironmentConfig(BaseModel):
    """The keyword config of ``ShellportEnvironment``."""

    cwd: str
    """Absolute working directory of the session."""
    env: dict[str, str] = {}
    """Environment variables set for every command."""
    timeout: int = 30
    """Seconds a command may run before it is stopped."""
    profile: str = "persistent"
    """``persistent`` (one shell for the whole run) or ``oneshot``."""
    transport: str | list[str] = "auto"
    """``auto``, ``library``, ``process`` or an argv that runs ``shellport serve``."""
    config: dict[str, Any] = {}
    """More runtime config (``{"tools": {...}}``), merged over the above."""


class ShellportEnvironment:
    """A mini-swe-agent environment whose commands run in a shellport session."""

    def __init__(
        self,
        *,
        config_class: type[ShellportEnvironmentConfig] = ShellportEnvironmentConfig,
        **kwargs: Any,
    ) -> None:
        self.config = config_class(**kwargs)
        self._runtime = Runtime(_runtime_config(self.config), _transport(self.config.transport))
        try:
            self._session: Session = self._runtime.session(self.config.cwd, env=self.config.env)
        except BaseException:
            self._runtime.close()
            raise
        self._uname: dict[str, str] | None = None

    def execute(
        self, action: Mapping[str, Any] | str, cwd: str = "", *, timeout: int | None = None
    ) -> dict[str, Any]:
        """Run one action's command and return its output and returncode."""
        command = action if isinstance(action, str) else str(action.get("command", ""))
        call_id = None if isinstance(action, str) else action.get("tool_call_id")
        workdir = cwd if cwd and cwd != self._session.cwd else None
        if workdir is not None and self.config.profile == "persistent":
            moved = self._run(f"cd -- {shlex.quote(workdir)}", None, None)
            if exit_code(moved) != 0:
                return self._finish(command, moved, timeout)
            workdir = None  # the shell is there now, and stays
        return self._finish(command, self._run(command, timeout, call_id, workdir), timeout)

    def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
        """The config, the uname fields of the machine the commands run on, and kwargs."""
        result: dict[str, Any] = recursive_merge(self.config.model_dump(), self._host(), kwargs)
        return result

    def serialize(self) -> dict[str, Any]:
        """The environment's config, for the trajectory file."""
        return {
            "info": {
                "config": {
                    "environment": self.config.model_dump(mode="json"),
                    "environment_type": f"{type(self).__module__}.{type(self).__name__}",
                }
            }
        }

    def cleanup(self) -> None:
        """Kill everything the session started and close the runtime. Safe to call twice."""
        runtime = getattr(self, "_runtime", None)
        if runtime is not None:
            runtime.close()

    close = cleanup

    def __enter__(self) -> ShellportEnvironment:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # best effort at garbage collection
            self.cleanup()

    # --- internals -------------------------------------------------------------------

    def _run(
        self, command: str, timeout: int | None, call_id: Any, workdir: str | None = None
    ) -> ToolResult:
        profile = self.config.profile
        timeout_ms = None if timeout is None else timeout * 1000
        args = call_arguments(profile, command, DESCRIPTION, timeoutMs=timeout_ms, workdir=workdir)
        cid = call_id if isinstance(call_id, str) else None
        if profile == "persistent" and timeout is not None and timeout < self.config.timeout:
            return _call_with_deadline(self._session, args, cid, timeout)
        return self._session.call("bash", args, call_id=cid)

    def _finish(self, command: str, result: ToolResult, timeout: int | None) -> dict[str, Any]:
        code = exit_code(result)
        output = strip_exit_marker(result.text, code)
        if output == "[no output]" and code == 0:
            output = ""  # the one-shot tool's word for nothing printed
        out: dict[str, Any] = {"output": output, "returncode": code, "exception_info": ""}
        if result.meta.get("timedOut") is True:
            exc = subprocess.TimeoutExpired(command, timeout or self.config.timeout, output=output)
            out.update(_exception(exc))
        elif result.is_error or code is None:
            out.update(_exception(RuntimeError(result.text)))
        _check_finished(out)
        return out

    def _host(self) -> dict[str, str]:
        """uname of the machine the commands run on (it may be a container)."""
        if self._uname is None:
            keys = ("system", "node", "release", "version", "machine")
            script = "uname -s; uname -n; uname -r; uname -v; uname -m"
            r = self._session.call("bash", call_arguments(self.config.profile, script, DESCRIPTION))
            lines = r.text.splitlines()
            self._uname = dict(zip(keys, lines)) if len(lines) >= len(keys) else {}
        return self._uname


def _runtime_config(cfg: ShellportEnvironmentConfig) -> dict[str, Any]:
    bash: dict[str, Any] = {"timeoutMs": cfg.timeout * 1000}
    if cfg.profile != "persistent":
        bash["maxTimeoutMs"] = max(600_000, cfg.timeout * 1000)
    base: dict[str, Any] = {"profile": cfg.profile, "tools": {"bash": bash}}
    merged: dict[str, Any] = recursive_merge(base, cfg.config)
    return merged


def _transport(spec: str | Sequence[str]) -> str | list[str]:
    return spec if isinstance(spec, str) else list(spec)


def _exception(exc: BaseException) -> dict[str, Any]:
    """How mini-swe-agent's own environments report an exception."""
    return {
        "returncode": -1,
        "exception_info": f"An error occurred while executing the command: {exc}",
        "extra": {"exception_type": type(exc).__name__, "exception": str(exc)},
    }


def _check_finished(output: dict[str, Any]) -> None:
    """Raise Submitted when the output starts with the submission marker."""
    lines = str(output.get("output", "")).lstrip().splitlines(keepends=True)
    if lines and lines[0].strip() == SUBMIT_MARKER and output["returncode"] == 0:
        submission = "".join(lines[1:])
        raise Submitted(
            {
                "role": "exit",
                "content": submission,
                "extra": {"exit_status": "Submitted", "submission": submission},
            }
        )


def _call_with_deadline(
    session: Session, args: dict[str, Any], call_id: str | None, timeout: int
) -> ToolResult:
    """A persistent-bash call with a timeout other than the runtime's own.

    The persistent tool's timeout is per runtime, so another one is enforced
    here by cancelling the call, which resets the shell like a timeout does.
    """

    async def bounded() -> ToolResult:
        return await asyncio.wait_for(session.acall("bash", args, call_id=call_id), timeout)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        try:
            return pool.submit(asyncio.run, bounded()).result()
        except (asyncio.TimeoutError, TimeoutError):
            unit = "second" if timeout == 1 else "seconds"
            text = (
                f"[timed out after {timeout} {unit}]\n[the command was stopped and the shell was "
                "reset: its working directory, variables and background jobs are gone]"
            )
            return ToolResult(text=text, meta={"timedOut": True, "shellReset": True})
