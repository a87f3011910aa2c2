"""shellport.vendors.openai against OpenAI's own SDK (issue 13).

The openai profile's native tools are declared as the Responses API takes
them, every other profile's tools as Responses function tools, and a
scripted model drives them through the real ``openai`` client (answered
in-process, no network): explore a small repository with the shell, patch
it, run its tests. Every item shellport hands the SDK is checked against
the SDK's own types by round trip.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openai import AsyncOpenAI
from openai.types.responses import (
    Response,
    ResponseApplyPatchToolCallOutput,
    ResponseFunctionShellToolCallOutput,
    ToolParam,
)
from openai.types.responses.response_input_item_param import (
    ApplyPatchCallOutput,
    FunctionCallOutput,
)
from vendor_clients import (
    CALC,
    RUN_TESTS,
    Script,
    apply_patch_call,
    assistant_text,
    function_call,
    make_repo,
    openai_client,
    response,
    same_as_model,
    same_as_typed_dict,
    shell_call,
)

import shellport
from shellport.vendors.openai import aoutputs, outputs


def check_item(item: dict[str, Any]) -> None:
    """An output item is exactly what the SDK's types make of it."""
    if item["type"] == "shell_call_output":
        same_as_model(ResponseFunctionShellToolCallOutput, item, id="sho_1", status="completed")
    elif item["type"] == "apply_patch_call_output":
        same_as_typed_dict(ApplyPatchCallOutput, item)
        same_as_model(ResponseApplyPatchToolCallOutput, item, id="apo_1")
    else:
        same_as_typed_dict(FunctionCallOutput, item)


def test_native_declarations(transport: str) -> None:
    with shellport.Runtime({"profile": "openai"}, transport) as rt:
        for strict in (False, True):
            tools = rt.tools(format="openai-responses", strict=strict)
            assert tools == [{"type": "shell"}, {"type": "apply_patch"}]
            for t in tools:
                same_as_typed_dict(ToolParam, t)


@pytest.mark.parametrize("profile", ["oneshot", "persistent", "anthropic"])
def test_function_tools(transport: str, profile: str) -> None:
    """The other profiles' tools are Responses function tools (the flat shape,
    strict always present); strict mode requires every argument."""
    with shellport.Runtime({"profile": profile}, transport) as rt:
        for strict in (False, True):
            tools = rt.tools(format="openai-responses", strict=strict)
            assert [t["name"] for t in tools] == rt.tool_names
            for t in tools:
                same_as_typed_dict(ToolParam, t)
                assert t["type"] == "function"
                assert t["strict"] is strict
                if strict:
                    params = t["parameters"]
                    assert params["required"] == list(params["properties"])
                    assert params["additionalProperties"] is False


def conversation(repo: Path) -> list[dict[str, Any]]:
    fix = "@@ def add(a, b):\n-\treturn a - b\n+\treturn a + b\n"
    return [
        response(1, shell_call("c1", ["ls", "cat test_calc.py", RUN_TESTS])),
        response(
            2,
            apply_patch_call("c2", {"type": "update_file", "path": "calc.py", "diff": fix}),
            apply_patch_call(
                "c3", {"type": "update_file", "path": "calc.py", "diff": "@@\n-nothing here\n+x\n"}
            ),
        ),
        response(
            3,
            shell_call("c4", [RUN_TESTS, "seq 1 100000"], max_output_length=300, timeout_ms=60000),
        ),
        response(
            4,
            apply_patch_call(
                "c5", {"type": "create_file", "path": "NOTES.md", "diff": "+Fixed add().\n"}
            ),
            apply_patch_call("c6", {"type": "delete_file", "path": "NOTES.md"}),
        ),
        response(5, assistant_text("add() is fixed.")),
    ]


def test_scripted_conversation(tmp_path: Path, transport: str) -> None:
    """Explore, patch, test: the real client, the helper, the profile."""
    repo = make_repo(tmp_path)
    script = Script(conversation(repo))
    client = openai_client(script)
    items: dict[str, dict[str, Any]] = {}
    with shellport.Runtime({"profile": "openai"}, transport) as rt, rt.session(repo) as s:
        tools = rt.tools(format="openai-responses")
        resp = client.responses.create(model="gpt-scripted", tools=tools, input="Fix add().")
        while True:
            out = outputs(s, resp)
            if not out:
                break
            for item in out:
                check_item(item)
                items[item["call_id"]] = item
            resp = client.responses.create(
                model="gpt-scripted", tools=tools, previous_response_id=resp.id, input=out
            )
    script.done()
    assert resp.output_text == "add() is fixed."

    ls, cat, red = items["c1"]["output"]
    assert ls == {
        "stdout": "calc.py\ntest_calc.py\n",
        "stderr": "",
        "outcome": {"type": "exit", "exit_code": 0},
    }
    assert "class T(unittest.TestCase)" in cat["stdout"]
    assert red["outcome"] == {"type": "exit", "exit_code": 1}
    assert "FAILED" in red["stderr"]
    assert "max_output_length" not in items["c1"]

    assert items["c2"]["status"] == "completed"
    assert items["c2"]["output"].startswith("Updated calc.py: 1 hunk at line 2")
    assert items["c3"]["status"] == "failed"
    assert items["c3"]["output"].startswith("The patch was not applied; no file was changed.")
    assert (repo / "calc.py").read_bytes() == CALC.replace("a - b", "a + b").encode()

    green, seq = items["c4"]["output"]
    assert "OK" in green["stderr"]
    assert green["outcome"] == {"type": "exit", "exit_code": 0}
    assert items["c4"]["max_output_length"] == 300
    total = sum(len(o["stdout"]) + len(o["stderr"]) for o in items["c4"]["output"])
    assert total <= 300
    assert seq["stdout"].startswith("1\n2\n")
    assert seq["stdout"].endswith("99999\n100000\n")

    assert items["c5"]["status"] == items["c6"]["status"] == "completed"
    assert not (repo / "NOTES.md").exists()

    # The items went over the wire as they are.
    assert script.requests[1]["input"] == [items["c1"]]
    assert script.requests[2]["input"] == [items["c2"], items["c3"]]
    assert all(r["tools"] == tools for r in script.requests)


def test_function_calls(tmp_path: Path, transport: str) -> None:
    """function_call items run the profile's function tools; strict-mode nulls,
    malformed JSON and unknown names reach the model as output text."""
    repo = make_repo(tmp_path)
    items = [
        function_call(
            "f1",
            "bash",
            {"command": "ls", "description": "List the files", "timeoutMs": None, "workdir": None},
        ),
        function_call("f2", "bash", "{not json"),
        function_call("f3", "python", {"code": "1"}),
        function_call(
            "f4",
            "str_replace_editor",
            {"command": "view", "path": str(repo / "calc.py"), "view_range": [1, 1]},
        ),
        {"type": "reasoning", "id": "rs_1", "summary": []},
    ]
    with shellport.Runtime({"profile": "oneshot"}, transport) as rt, rt.session(repo) as s:
        for form in (Response.model_validate(response(1, *items)), response(1, *items), items):
            out = outputs(s, form)
            for item in out:
                check_item(item)
            assert [o["call_id"] for o in out] == ["f1", "f2", "f3", "f4"]
            assert out[0]["output"] == "calc.py\ntest_calc.py\n"
            assert out[1]["output"] == "invalid arguments: malformed JSON at byte 1"
            assert 'unknown tool "python"' in out[2]["output"]
            assert out[3]["output"].startswith("     1\tdef add(a, b):")


def test_shell_hostile_and_caller(tmp_path: Path, transport: str) -> None:
    """An empty command list, a timeout mid-batch, non-UTF-8 output; a call's
    caller is copied to its output."""
    bad = shell_call("h1", [])
    slow = shell_call("h2", ["echo a", "sleep 60", "echo never"], timeout_ms=2000)
    binary = {**shell_call("h3", ["printf 'x\\xff\\xfey'"]), "caller": {"type": "direct"}}
    with shellport.Runtime({"profile": "openai"}, transport) as rt, rt.session(tmp_path) as s:
        out = outputs(s, [bad, slow, binary])
    for item in out:
        check_item(item)
    assert out[0]["output"] == [
        {
            "stdout": "",
            "stderr": 'invalid arguments: "action.commands" is empty; '
            "give at least one command to run",
            "outcome": {"type": "exit", "exit_code": 2},
        }
    ]
    assert [o["outcome"]["type"] for o in out[1]["output"]] == ["exit", "timeout"]
    assert out[2]["output"][0]["stdout"] == "x\ufffd\ufffdy"  # one per bad byte, as bash reads
    assert out[2]["caller"] == {"type": "direct"}


async def test_async(tmp_path: Path, transport: str) -> None:
    import httpx2 as httpx

    repo = make_repo(tmp_path)
    script = Script([response(1, shell_call("a1", [RUN_TESTS])), response(2, assistant_text("ok"))])

    async def handle(request: httpx.Request) -> httpx.Response:
        return script(request)

    client = AsyncOpenAI(
        api_key="test",
        base_url="http://openai.test/v1",
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(handle)),
        max_retries=0,
    )
    with shellport.Runtime({"profile": "openai"}, transport) as rt, rt.session(repo) as s:
        tools = rt.tools(format="openai-responses")
        resp = await client.responses.create(model="m", tools=tools, input="Run the tests.")
        out = await aoutputs(s, resp)
        resp = await client.responses.create(
            model="m", tools=tools, previous_response_id=resp.id, input=out
        )
    script.done()
    assert out[0]["output"][0]["outcome"] == {"type": "exit", "exit_code": 1}
    assert json.loads(json.dumps(script.requests[1]["input"])) == out
    assert resp.output_text == "ok"
