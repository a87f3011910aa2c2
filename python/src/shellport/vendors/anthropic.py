"""Anthropic's Messages API: run a reply's ``tool_use`` blocks, answer with ``tool_result`` blocks.

::

    reply = client.messages.create(..., tools=rt.tools(format="anthropic"), messages=messages)
    messages.append({"role": "assistant", "content": reply.content})
    messages.append({"role": "user", "content": tool_results(session, reply)})

Each ``tool_use`` block runs as a call of the tool it names, in the order
the blocks come (a persistent shell sees its commands in that order), with
the block's id as the call id. Its ``tool_result`` holds the text the tool
returns for the model, and ``is_error`` is the result's: true for invalid
arguments, a failed edit or an infrastructure failure, false for a command
that ran and exited non-zero (its text says so). A block naming a tool the
runtime does not have gets an ``is_error`` result that lists the tools.
Other blocks (text, thinking, server tools) are skipped.
"""

from __future__ import annotations

from typing import Any

from .._exceptions import UnknownTool
from .._models import ToolResult
from .._session import Session
from ._common import field, items, plain

__all__ = ["atool_results", "tool_results"]


def tool_results(session: Session, message: Any) -> list[dict[str, Any]]:
    """Run the ``tool_use`` blocks of ``message`` in ``session``; return ``tool_result`` blocks.

    ``message`` is an ``anthropic.types.Message``, a dict with ``content``, or
    the content list itself (SDK blocks or dicts). The blocks returned are
    ``ToolResultBlockParam`` dicts, ready for the next user message.
    """
    results = []
    for use in _tool_uses(message):
        try:
            result = session.call(use.name, use.input, call_id=use.id)
        except UnknownTool as exc:
            result = ToolResult(text=str(exc), is_error=True)
        results.append(_tool_result(use.id, result))
    return results


async def atool_results(session: Session, message: Any) -> list[dict[str, Any]]:
    """``tool_results`` for asyncio: the calls run one after another, in block order."""
    results = []
    for use in _tool_uses(message):
        try:
            result = await session.acall(use.name, use.input, call_id=use.id)
        except UnknownTool as exc:
            result = ToolResult(text=str(exc), is_error=True)
        results.append(_tool_result(use.id, result))
    return results


class _ToolUse:
    """One ``tool_use`` block, read from an SDK object or a dict."""

    def __init__(self, block: Any) -> None:
        self.id = str(field(block, "id"))
        self.name = str(field(block, "name"))
        arguments = plain(field(block, "input"))
        # Anything but an object goes to the runtime as it is, which says
        # what is wrong with it.
        self.input: Any = {} if arguments is None else arguments


def _tool_uses(message: Any) -> list[_ToolUse]:
    return [_ToolUse(b) for b in items(message, "content") if field(b, "type") == "tool_use"]


def _tool_result(tool_use_id: str, result: ToolResult) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "is_error": result.is_error,
    }
    if result.text:
        block["content"] = result.text
    return block
