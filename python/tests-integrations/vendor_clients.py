"""Scripted vendor clients: the real ``anthropic`` and ``openai`` SDK clients,
their HTTP answered in-process by an ``httpx.MockTransport`` that replays a
script of model replies and keeps every request body. Nothing touches the
network; the SDKs build and parse every message exactly as they would
against the real APIs. Also: checks that what shellport produces is what the
SDKs' own types make of it (round trips compared, not just parsed).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import anthropic
import httpx2 as httpx
import openai
from pydantic import BaseModel, TypeAdapter

# --- a small repository the conversations work on ------------------------------------

CALC = "def add(a, b):\r\n\treturn a - b\r\n"  # tabs and CRLF line endings the edits must keep
TEST = (
    "import unittest\n\nfrom calc import add\n\n\n"
    "class T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n"
)
RUN_TESTS = "python3 -m unittest -q test_calc"


def make_repo(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()
    (repo / "calc.py").write_bytes(CALC.encode())
    (repo / "test_calc.py").write_text(TEST)
    return repo


# --- scripted HTTP ------------------------------------------------------------------


class Script:
    """Answers each request with the next reply and records the request bodies."""

    def __init__(self, replies: Iterable[dict[str, Any]]) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        if not self.replies:
            return httpx.Response(
                500, json={"error": {"message": "the script has no more replies"}}
            )
        return httpx.Response(200, json=self.replies.pop(0))

    def done(self) -> None:
        assert self.replies == [], f"{len(self.replies)} scripted replies were never asked for"


# The classes themselves, kept for when a test puts a factory in their place.
ANTHROPIC, OPENAI = anthropic.Anthropic, openai.OpenAI


def anthropic_client(script: Script) -> anthropic.Anthropic:
    return ANTHROPIC(
        api_key="test",
        base_url="http://anthropic.test",
        http_client=httpx.Client(transport=httpx.MockTransport(script)),
        max_retries=0,
    )


def async_anthropic_client(script: Script) -> anthropic.AsyncAnthropic:
    async def handle(request: httpx.Request) -> httpx.Response:
        return script(request)

    return anthropic.AsyncAnthropic(
        api_key="test",
        base_url="http://anthropic.test",
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(handle)),
        max_retries=0,
    )


def openai_client(script: Script) -> openai.OpenAI:
    return OPENAI(
        api_key="test",
        base_url="http://openai.test/v1",
        http_client=httpx.Client(transport=httpx.MockTransport(script)),
        max_retries=0,
    )


# --- replies ------------------------------------------------------------------------


def message(n: int, *blocks: dict[str, Any], stop: str = "tool_use") -> dict[str, Any]:
    """A Messages API reply."""
    return {
        "id": f"msg_{n:02d}",
        "type": "message",
        "role": "assistant",
        "model": "claude-scripted",
        "content": list(blocks),
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def tool_use(id: str, name: str, input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": name, "input": input}


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def response(n: int, *items: dict[str, Any]) -> dict[str, Any]:
    """A Responses API reply."""
    return {
        "id": f"resp_{n:02d}",
        "object": "response",
        "created_at": 1_700_000_000,
        "model": "gpt-scripted",
        "status": "completed",
        "output": list(items),
        "parallel_tool_calls": False,
        "tool_choice": "auto",
        "tools": [],
    }


def shell_call(call_id: str, commands: list[str], **limits: int) -> dict[str, Any]:
    return {
        "type": "shell_call",
        "id": "sh_" + call_id,
        "call_id": call_id,
        "status": "completed",
        "action": {
            "commands": commands,
            "timeout_ms": limits.get("timeout_ms"),
            "max_output_length": limits.get("max_output_length"),
        },
    }


def apply_patch_call(call_id: str, operation: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "apply_patch_call",
        "id": "apc_" + call_id,
        "call_id": call_id,
        "status": "completed",
        "operation": operation,
    }


def function_call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {
        "type": "function_call",
        "id": "fc_" + call_id,
        "call_id": call_id,
        "name": name,
        "arguments": raw,
        "status": "completed",
    }


def assistant_text(t: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": "msg_final",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": t, "annotations": []}],
    }


# --- the SDKs' own types ------------------------------------------------------------


def same_as_typed_dict(kind: Any, value: Any) -> None:
    """value is exactly what the SDK's TypedDict type makes of it: valid, and
    nothing dropped or changed on the way (pydantic drops unknown keys)."""
    back = TypeAdapter(kind).validate_python(value)
    assert json.loads(json.dumps(back, default=list)) == value, (kind, value)


def same_as_model(model: type[BaseModel], value: dict[str, Any], **fill: Any) -> None:
    """value, completed with fill (the fields the API adds, such as ids), is
    exactly an SDK model: valid, no field unknown to the model at any depth,
    and its dump gives value back."""
    m = model.model_validate({**value, **fill})
    unknown = extra_fields(m)
    assert unknown == [], f"{model.__name__}: fields the SDK does not know: {unknown}"
    back = m.model_dump(mode="json", exclude_unset=True)
    for key in fill:
        back.pop(key)
    assert back == value, (model.__name__, value)


def extra_fields(m: Any, where: str = "") -> list[str]:
    if isinstance(m, BaseModel):
        found = [f"{where}.{k}" for k in (m.model_extra or {})]
        for name in type(m).model_fields:
            found += extra_fields(getattr(m, name), f"{where}.{name}")
        return found
    if isinstance(m, (list, tuple)):
        return [x for i, v in enumerate(m) for x in extra_fields(v, f"{where}[{i}]")]
    return []
