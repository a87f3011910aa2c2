"""shellport.vendors.anthropic against Anthropic's own SDK (issue 13).

The anthropic profile's tools are declared as the Messages API takes them,
and a scripted model drives them through the real ``anthropic`` client
(answered in-process, no network): explore a small repository, run its
tests, fix it, run them again, restart the shell. Everything shellport hands
the SDK is checked against the SDK's own types by round trip.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from anthropic.lib._parse._transform import transform_schema
from anthropic.types import Message, ToolParam, ToolResultBlockParam, ToolUnionParam
from vendor_clients import (
    CALC,
    RUN_TESTS,
    Script,
    anthropic_client,
    async_anthropic_client,
    make_repo,
    message,
    same_as_typed_dict,
    text,
    tool_use,
)

import shellport
from shellport.vendors.anthropic import atool_results, tool_results

EDITOR = "str_replace_based_edit_tool"


@pytest.mark.parametrize(
    ("tools", "want"),
    [
        (
            {},
            [
                {"type": "bash_20250124", "name": "bash"},
                {"type": "text_editor_20250728", "name": EDITOR},
            ],
        ),
        (
            {EDITOR: {"max_characters": 5000}},
            [
                {"type": "bash_20250124", "name": "bash"},
                {"type": "text_editor_20250728", "name": EDITOR, "max_characters": 5000},
            ],
        ),
        (
            {EDITOR: {"type": "text_editor_20250429"}},
            [
                {"type": "bash_20250124", "name": "bash"},
                {"type": "text_editor_20250429", "name": EDITOR},
            ],
        ),
        (
            {EDITOR: {"type": "text_editor_20250124"}},
            [
                {"type": "bash_20250124", "name": "bash"},
                {"type": "text_editor_20250124", "name": "str_replace_editor"},
            ],
        ),
    ],
)
def test_native_declarations(transport: str, tools: dict[str, Any], want: Any) -> None:
    """The declarations are the SDK's tool types, exactly; strict adds strict."""
    with shellport.Runtime({"profile": "anthropic", "tools": tools}, transport) as rt:
        assert rt.tools(format="anthropic") == want
        assert rt.tools(format="anthropic", strict=True) == [{**d, "strict": True} for d in want]
        for strict in (False, True):
            for d in rt.tools(format="anthropic", strict=strict):
                same_as_typed_dict(ToolUnionParam, d)


@pytest.mark.parametrize("profile", ["oneshot", "persistent", "openai"])
def test_custom_tools_strict(transport: str, profile: str) -> None:
    """Other profiles' tools are custom tools; in strict mode their schemas are
    ones the SDK's own transform leaves exactly as they are."""
    config: dict[str, Any] = {"profile": profile}
    if profile != "openai":
        config["tools"] = {"apply_patch": {}}
    with shellport.Runtime(config, transport) as rt:
        plain, strict = rt.tools(format="anthropic"), rt.tools(format="anthropic", strict=True)
        assert [t["name"] for t in plain] == [t["name"] for t in strict] == rt.tool_names
        for t in plain:
            same_as_typed_dict(ToolParam, t)
            assert "strict" not in t
        for t in strict:
            same_as_typed_dict(ToolParam, t)
            assert t["strict"] is True
            assert transform_schema(t["input_schema"]) == t["input_schema"], t["name"]


def conversation(repo: Path) -> list[dict[str, Any]]:
    calc, test = str(repo / "calc.py"), str(repo / "test_calc.py")
    return [
        message(
            1,
            text("Let me look."),
            tool_use("t1", "bash", {"command": "export GREETING=hi; ls -1"}),
        ),
        message(2, tool_use("t2", EDITOR, {"command": "view", "path": calc})),
        message(3, tool_use("t3", "bash", {"command": RUN_TESTS})),
        message(
            4,
            tool_use(
                "t4",
                EDITOR,
                {"command": "str_replace", "path": calc, "old_str": "a - b", "new_str": "a + b"},
            ),
        ),
        message(
            5,
            tool_use("t5", "bash", {"command": f"echo $GREETING; {RUN_TESTS}"}),
            tool_use("t6", EDITOR, {"command": "view", "path": "test_calc.py"}),
            tool_use("t7", EDITOR, {"command": "view", "path": test, "view_range": [6, 6]}),
        ),
        message(6, tool_use("t8", "bash", {"restart": True})),
        message(7, tool_use("t9", "bash", {"command": "echo ${GREETING:-gone}"})),
        message(8, text("add() is fixed and the tests pass."), stop="end_turn"),
    ]


def test_scripted_conversation(tmp_path: Path, transport: str) -> None:
    """Explore, test, edit, test: the real client, the helper, the profile."""
    repo = make_repo(tmp_path)
    script = Script(conversation(repo))
    client = anthropic_client(script)
    results: dict[str, dict[str, Any]] = {}
    with shellport.Runtime({"profile": "anthropic"}, transport) as rt, rt.session(repo) as s:
        tools = rt.tools(format="anthropic")
        messages: list[Any] = [{"role": "user", "content": "Make the tests pass."}]
        while True:
            reply = client.messages.create(
                model="claude-scripted", max_tokens=1024, tools=tools, messages=messages
            )
            messages.append({"role": "assistant", "content": reply.content})
            if reply.stop_reason != "tool_use":
                break
            blocks = tool_results(s, reply)
            for b in blocks:
                same_as_typed_dict(ToolResultBlockParam, b)
                results[b["tool_use_id"]] = b
            messages.append({"role": "user", "content": blocks})
    script.done()

    assert results["t1"] == {
        "type": "tool_result",
        "tool_use_id": "t1",
        "is_error": False,
        "content": "calc.py\ntest_calc.py\n",
    }
    assert "     2\t\treturn a - b" in results["t2"]["content"]
    assert results["t3"]["is_error"] is False  # a failing command is not a tool error
    assert "FAILED" in results["t3"]["content"]
    assert results["t3"]["content"].endswith("[exit code: 1]")
    assert results["t4"]["is_error"] is False
    assert (repo / "calc.py").read_bytes() == CALC.replace("a - b", "a + b").encode()
    assert results["t5"]["content"].startswith("hi\n")
    assert "OK" in results["t5"]["content"]
    assert results["t6"]["is_error"] is True
    assert "is not absolute" in results["t6"]["content"]
    assert results["t7"]["content"] == "     6\tclass T(unittest.TestCase):\n[lines 6-6 of 8]"
    assert results["t8"]["content"].startswith("The shell was restarted")
    assert results["t9"]["content"] == "gone\n"

    # What went over the wire: our declarations, and our blocks as sent.
    assert all(r["tools"] == tools for r in script.requests)
    sent = script.requests[4]["messages"][-1]
    assert sent == {"role": "user", "content": [results["t4"]]}
    assert [b["tool_use_id"] for b in script.requests[5]["messages"][-1]["content"]] == [
        "t5",
        "t6",
        "t7",
    ]


async def test_async_conversation(tmp_path: Path, transport: str) -> None:
    repo = make_repo(tmp_path)
    script = Script(
        [
            message(1, tool_use("a1", "bash", {"command": RUN_TESTS})),
            message(2, text("done"), stop="end_turn"),
        ]
    )
    client = async_anthropic_client(script)
    with shellport.Runtime({"profile": "anthropic"}, transport) as rt, rt.session(repo) as s:
        messages: list[Any] = [{"role": "user", "content": "Run the tests."}]
        reply = await client.messages.create(
            model="m", max_tokens=64, tools=rt.tools(format="anthropic"), messages=messages
        )
        blocks = await atool_results(s, reply)
        messages += [
            {"role": "assistant", "content": reply.content},
            {"role": "user", "content": blocks},
        ]
        reply = await client.messages.create(model="m", max_tokens=64, messages=messages)
    script.done()
    assert blocks[0]["tool_use_id"] == "a1"
    assert "FAILED" in blocks[0]["content"]
    assert reply.stop_reason == "end_turn"


def test_helper_inputs(tmp_path: Path, transport: str) -> None:
    """A Message, a dict with content, or the content list; other blocks skipped;
    an unknown tool is an error the model reads; no text, no content."""
    msg = message(
        1,
        text("thinking aloud"),
        {"type": "thinking", "thinking": "hmm", "signature": "x"},
        tool_use("u1", "bash", {"command": "true"}),
        tool_use("u2", "python", {"code": "1"}),
        tool_use("u3", EDITOR, {"command": "view", "path": str(tmp_path)}),
    )
    with shellport.Runtime({"profile": "anthropic"}, transport) as rt, rt.session(tmp_path) as s:
        for form in (Message.model_validate(msg), msg, msg["content"]):
            blocks = tool_results(s, form)
            assert [b["tool_use_id"] for b in blocks] == ["u1", "u2", "u3"]
            assert blocks[0] == {
                "type": "tool_result",
                "tool_use_id": "u1",
                "is_error": False,
                "content": "[no output]",
            }
            assert blocks[1]["is_error"] is True
            assert 'unknown tool "python"' in blocks[1]["content"]
            assert "bash, str_replace_based_edit_tool" in blocks[1]["content"]
            assert blocks[2]["is_error"] is False
            for b in blocks:
                same_as_typed_dict(ToolResultBlockParam, b)
        with pytest.raises(TypeError, match="has no 'content'"):
            tool_results(s, {"role": "assistant"})


def test_max_characters_and_undo(tmp_path: Path, transport: str) -> None:
    """The two settings the vendor behaviour hangs on, through the helper."""
    lines = "".join(f"line {i}\n" for i in range(1, 101))
    f = tmp_path / "long.txt"
    f.write_text(lines)
    config = {"profile": "anthropic", "tools": {EDITOR: {"max_characters": 200}}}
    with shellport.Runtime(config, transport) as rt, rt.session(tmp_path) as s:
        view = tool_results(s, [tool_use("v", EDITOR, {"command": "view", "path": str(f)})])[0]
        shown = view["content"].split("\n[")[0]
        assert 150 < len(shown) <= 200
        assert "view_range [" in view["content"]
    config = {"profile": "anthropic", "tools": {EDITOR: {"type": "text_editor_20250124"}}}
    with shellport.Runtime(config, transport) as rt, rt.session(tmp_path) as s:
        assert rt.tool_names == ["bash", "str_replace_editor"]
        edit = {
            "command": "str_replace",
            "path": str(f),
            "old_str": "line 7\n",
            "new_str": "seven\n",
        }
        undo = {"command": "undo_edit", "path": str(f)}
        blocks = tool_results(
            s,
            [
                tool_use("e", "str_replace_editor", edit),
                tool_use("u", "str_replace_editor", undo),
                tool_use("u2", "str_replace_editor", undo),
            ],
        )
        assert [b["is_error"] for b in blocks] == [False, False, True]
        assert "there is no edit of" in blocks[2]["content"]
        assert f.read_text() == lines
