"""OpenAI's Responses API: run a response's tool calls, answer with their ``*_output`` items.

::

    tools = rt.tools(format="openai-responses")
    response = client.responses.create(model=..., tools=tools, input=task)
    while items := outputs(session, response):
        response = client.responses.create(model=..., tools=tools,
                                           previous_response_id=response.id, input=items)

- ``shell_call`` runs as the ``shell`` tool; its ``shell_call_output`` holds
  the tool's output list (per command stdout, stderr and an exit code or a
  timeout) and passes ``max_output_length`` back as the API asks.
- ``apply_patch_call`` runs as ``apply_patch``; its
  ``apply_patch_call_output`` carries ``status`` (``completed`` or
  ``failed``) and the text that says what happened.
- ``function_call`` runs the tool it names with its JSON arguments (nulls,
  which strict mode sends for arguments left out, are dropped); its
  ``function_call_output`` holds the tool's text. Malformed JSON and an
  unknown tool name come back as the output's text.

Calls run one after another, in the order of the items, each with its
``call_id`` as the call id. Other items (messages, reasoning) are skipped.
The ``shell`` and ``apply_patch`` tools are those of the ``openai`` profile.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._exceptions import ProtocolError, UnknownTool
from .._models import ToolResult
from .._session import Session
from ._common import field, items, json_arguments, plain

__all__ = ["aoutputs", "outputs"]

SHELL = "shell"
APPLY_PATCH = "apply_patch"


def outputs(session: Session, response: Any) -> list[dict[str, Any]]:
    """Run the tool calls of ``response`` in ``session``; return their output items.

    ``response`` is an ``openai.types.responses.Response``, a dict with
    ``output``, or the output list itself (SDK items or dicts). The items
    returned are ``ResponseInputItemParam`` dicts for the next request's
    ``input``; an empty list means the response called no tool.
    """
    out = []
    for call in _calls(response):
        if call.error is not None:
            out.append(call.answer(call.error))
            continue
        try:
            result = session.call(call.name, call.arguments, call_id=call.call_id)
        except UnknownTool as exc:
            if call.native:
                raise
            result = ToolResult(text=str(exc), is_error=True)
        out.append(call.answer(result))
    return out


async def aoutputs(session: Session, response: Any) -> list[dict[str, Any]]:
    """``outputs`` for asyncio: the calls run one after another, in item order."""
    out = []
    for call in _calls(response):
        if call.error is not None:
            out.append(call.answer(call.error))
            continue
        try:
            result = await session.acall(call.name, call.arguments, call_id=call.call_id)
        except UnknownTool as exc:
            if call.native:
                raise
            result = ToolResult(text=str(exc), is_error=True)
        out.append(call.answer(result))
    return out


class _Call:
    """One tool call of a response: what to run and how to shape the answer."""

    def __init__(
        self,
        item: Any,
        name: str,
        arguments: dict[str, Any],
        shape: Callable[[_Call, ToolResult], dict[str, Any]],
        *,
        native: bool,
        error: ToolResult | None = None,
    ) -> None:
        self.call_id = str(field(item, "call_id"))
        self.caller = plain(field(item, "caller"))
        self.name = name
        self.arguments = arguments
        self.native = native
        self.error = error
        self._shape = shape

    def answer(self, result: ToolResult) -> dict[str, Any]:
        answer = self._shape(self, result)
        if self.caller is not None:
            answer["caller"] = self.caller
        return answer


def _calls(response: Any) -> list[_Call]:
    calls = []
    for item in items(response, "output"):
        kind = field(item, "type")
        if kind == "shell_call":
            calls.append(_Call(item, SHELL, {"action": _action(item)}, _shell_output, native=True))
        elif kind == "apply_patch_call":
            operation = _operation(item)
            calls.append(
                _Call(item, APPLY_PATCH, {"operation": operation}, _patch_output, native=True)
            )
        elif kind == "function_call":
            arguments, error = json_arguments(field(item, "arguments"))
            calls.append(
                _Call(
                    item,
                    str(field(item, "name")),
                    arguments or {},
                    _function_output,
                    native=False,
                    error=ToolResult(text=error, is_error=True) if error else None,
                )
            )
    return calls


def _action(item: Any) -> dict[str, Any]:
    """A shell_call's action, with the fields the shell tool reads."""
    action = plain(field(item, "action")) or {}
    return {k: action[k] for k in ("commands", "timeout_ms", "max_output_length") if k in action}


def _operation(item: Any) -> dict[str, Any]:
    """An apply_patch_call's operation, with the fields apply_patch reads."""
    operation = plain(field(item, "operation")) or {}
    return {k: operation[k] for k in ("type", "path", "diff") if k in operation}


def _shell_output(call: _Call, result: ToolResult) -> dict[str, Any]:
    output = result.meta.get("output")
    if not isinstance(output, list):
        raise ProtocolError(f"the shell tool answered without an output list: {result.text!r:.200}")
    item: dict[str, Any] = {"type": "shell_call_output", "call_id": call.call_id, "output": output}
    asked = call.arguments["action"].get("max_output_length")
    if asked is not None:
        item["max_output_length"] = asked
    return item


def _patch_output(call: _Call, result: ToolResult) -> dict[str, Any]:
    status = result.meta.get("status")
    if status not in ("completed", "failed"):
        status = "failed" if result.is_error else "completed"
    return {
        "type": "apply_patch_call_output",
        "call_id": call.call_id,
        "status": status,
        "output": result.text,
    }


def _function_output(call: _Call, result: ToolResult) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call.call_id, "output": result.text}
