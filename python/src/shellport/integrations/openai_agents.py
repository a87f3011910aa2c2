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

Still to come, with the vendor-native tools of the ``openai`` profile
(``shell`` and ``apply_patch``): executors for the SDK's own ``ShellTool``
and ``ApplyPatchTool``, as ``shell_tool(session)`` and
``apply_patch_tool(session)`` in this module, so an agent trained on those
tools gets them served by the same runtime.
"""

from __future__ import annotations

import json
from typing import Any

from .._session import Session
from ._common import missing_harness

try:
    from agents import FunctionTool
    from agents.tool_context import ToolContext
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise missing_harness("openai_agents", "the OpenAI Agents SDK", "openai-agents") from exc

__all__ = ["tools"]


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
