"""OpenAI Agents SDK tools backed by shellport.

``tools(session)`` returns one ``agents.FunctionTool`` per tool of the
session's runtime (the profile decides which: ``bash``, ``bash_output``,
``bash_kill`` and ``str_replace_editor``, or persistent ``bash`` and the
editor), with shellport's names, descriptions and schemas::

    import shellport
    from agents import Agent, Runner
    from shellport.integrations.openai_agents import tools

    with shellport.Runtime({"profile": "persistent"}) as rt, rt.session("/abs/repo") as s:
        agent = Agent(name="coder", instructions="...", tools=tools(s))
        result = Runner.run_sync(agent, "Make the tests pass")

Each call runs in the session with the model's ``call_id`` as shellport's
call id; the model reads exactly the tool's text. Cancelling the run cancels
the call (and resets a persistent shell).

For the SDK's own native tools, whose calls the model makes as
``shell_call`` and ``apply_patch_call`` items, ``shell_tool(session)`` and
``apply_patch_tool(session)`` return a ``ShellTool`` and an
``ApplyPatchTool`` served by the ``shell`` and ``apply_patch`` tools of the
``openai`` profile::

    with shellport.Runtime({"profile": "openai"}) as rt, rt.session("/abs/repo") as s:
        agent = Agent(name="coder", instructions="...",
                      tools=[shell_tool(s), apply_patch_tool(s)])
"""

from __future__ import annotations

import json
from typing import Any

from .._session import Session
from ._common import missing_harness

try:
    from agents import (
        ApplyPatchOperation,
        ApplyPatchResult,
        ApplyPatchTool,
        FunctionTool,
        ShellCallOutcome,
        ShellCommandOutput,
        ShellCommandRequest,
        ShellResult,
        ShellTool,
    )
    from agents.tool_context import ToolContext
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise missing_harness("openai_agents", "the OpenAI Agents SDK", "openai-agents") from exc

__all__ = ["apply_patch_tool", "shell_tool", "tools"]


def tools(session: Session, *, strict: bool = True) -> list[FunctionTool]:
    """Function tools for every tool of the session's runtime.

    ``strict`` declares the schemas in OpenAI's strict mode (the default, as
    the SDK recommends): optional arguments become nullable, and a null is
    read as "left out".
    """
    definitions = session.runtime.tools(format="openai", strict=strict)
    return [_function_tool(session, d["function"], strict) for d in definitions]


def _function_tool(session: Session, fn: dict[str, Any], strict: bool) -> FunctionTool:
    name = str(fn["name"])

    async def invoke(ctx: ToolContext[Any], raw: str) -> str:
        try:
            arguments = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:
            return f"invalid arguments: malformed JSON at byte {exc.pos}"
        if strict and isinstance(arguments, dict):
            arguments = {k: v for k, v in arguments.items() if v is not None}
        result = await session.acall(name, arguments, call_id=ctx.tool_call_id or None)
        return result.text

    return FunctionTool(
        name=name,
        description=str(fn["description"]),
        params_json_schema=dict(fn["parameters"]),
        on_invoke_tool=invoke,
        strict_json_schema=strict,
    )


def shell_tool(session: Session) -> ShellTool:
    """The SDK's ``ShellTool``, its commands run by the session's ``shell`` tool.

    Each ``shell_call`` runs as one call (its ``call_id`` as the call id):
    the commands in order in the session's directory, ``timeout_ms`` per
    command and ``max_output_length`` over all outputs, applied by the
    runtime. The session's runtime must have the ``openai`` profile.
    """

    async def execute(request: ShellCommandRequest) -> ShellResult:
        action = request.data.action
        arguments: dict[str, Any] = {"commands": list(action.commands)}
        if action.timeout_ms is not None:
            arguments["timeout_ms"] = action.timeout_ms
        if action.max_output_length is not None:
            arguments["max_output_length"] = action.max_output_length
        result = await session.acall(
            "shell", {"action": arguments}, call_id=request.data.call_id or None
        )
        entries = result.meta.get("output")
        if not isinstance(entries, list):
            raise RuntimeError(f"the shell tool returned no output list: {result.text}")
        commands = arguments["commands"]
        return ShellResult(
            output=[
                _command_output(e, commands[i] if i < len(commands) else "")
                for i, e in enumerate(entries)
            ],
            max_output_length=action.max_output_length,
        )

    return ShellTool(executor=execute)


def _command_output(entry: dict[str, Any], command: str) -> ShellCommandOutput:
    outcome = entry.get("outcome") or {}
    if outcome.get("type") == "timeout":
        end = ShellCallOutcome(type="timeout")
    else:
        end = ShellCallOutcome(type="exit", exit_code=outcome.get("exit_code"))
    return ShellCommandOutput(
        stdout=str(entry.get("stdout", "")),
        stderr=str(entry.get("stderr", "")),
        outcome=end,
        command=command,
    )


def apply_patch_tool(session: Session) -> ApplyPatchTool:
    """The SDK's ``ApplyPatchTool``, its operations applied by the session's ``apply_patch``.

    Each operation is applied whole or not at all, with shellport's patch
    engine (tabs, CRLF and a missing final newline kept, ambiguous context
    refused); the result's status and text are what the model reads. The
    session's runtime must have the ``openai`` profile.
    """
    return ApplyPatchTool(editor=_Editor(session))


class _Editor:
    """An ``ApplyPatchEditor`` backed by a session's ``apply_patch`` tool."""

    def __init__(self, session: Session) -> None:
        self._session = session

    async def create_file(self, operation: ApplyPatchOperation) -> ApplyPatchResult:
        return await self._apply(operation)

    async def update_file(self, operation: ApplyPatchOperation) -> ApplyPatchResult:
        return await self._apply(operation)

    async def delete_file(self, operation: ApplyPatchOperation) -> ApplyPatchResult:
        return await self._apply(operation)

    async def _apply(self, operation: ApplyPatchOperation) -> ApplyPatchResult:
        if operation.move_to:
            return ApplyPatchResult(
                status="failed",
                output=f"{operation.path} was not changed: the operation also moves it to "
                f"{operation.move_to}, and an operation cannot move a file",
            )
        arguments: dict[str, Any] = {"type": operation.type, "path": operation.path}
        if operation.diff is not None:
            arguments["diff"] = operation.diff
        result = await self._session.acall("apply_patch", {"operation": arguments})
        failed = (
            result.meta.get("status", "failed" if result.is_error else "completed") != "completed"
        )
        return ApplyPatchResult(status="failed" if failed else "completed", output=result.text)
