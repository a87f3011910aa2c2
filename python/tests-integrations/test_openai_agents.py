"""OpenAI Agents SDK: the SDK's own ScriptedModel runs an agent whose tools are
shellport's, through the SDK's Runner (issue 14)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agents import Agent, FunctionTool, Runner
from agents.items import ToolCallOutputItem
from agents.testing import ScriptedModel, assistant_message, function_call

import shellport
from shellport.integrations.openai_agents import tools


def outputs(result: Any) -> dict[str, str]:
    """Tool outputs of a run by call id."""
    return {
        str(i.call_id): str(i.output) for i in result.new_items if isinstance(i, ToolCallOutputItem)
    }


@pytest.mark.parametrize("profile", ["oneshot", "persistent"])
async def test_scripted_trajectory(tmp_path: Path, transport: str, profile: str) -> None:
    """Explore, edit, test; a failing command and a bad argument reach the model as text."""
    app = tmp_path / "app.py"
    app.write_text("RETRIES = 3\n")
    test = "python3 -c 'import app, sys; sys.exit(0 if app.RETRIES == 5 else 1)'"
    bash = {"description": "Run a step of the task"} if profile == "oneshot" else {}
    with shellport.Runtime({"profile": profile}, transport) as rt, rt.session(tmp_path) as s:
        fts = tools(s)
        assert [t.name for t in fts] == rt.tool_names
        assert all(isinstance(t, FunctionTool) and t.strict_json_schema for t in fts)
        steps: list[Any] = [
            [function_call("bash", {**bash, "command": "ls"}, call_id="call_ls")],
            [function_call("bash", {**bash, "command": test}, call_id="call_red")],
            [
                function_call(
                    "str_replace_editor",
                    # strict mode: the model sends every argument, null for the unused ones
                    {
                        "command": "str_replace",
                        "path": str(app),
                        "old_str": "RETRIES = 3",
                        "new_str": "RETRIES = 5",
                        "file_text": None,
                        "view_range": None,
                        "insert_line": None,
                    },
                    call_id="call_edit",
                )
            ],
            [
                function_call(
                    "bash", {**bash, "command": test + " && echo green"}, call_id="call_green"
                )
            ],
            [
                function_call(
                    "str_replace_editor", {"command": "view", "path": "app.py"}, call_id="call_bad"
                )
            ],
            [function_call("bash", "{not json", call_id="call_broken")],
            [assistant_message("The retries are 5 now.")],
        ]
        model = ScriptedModel(steps)
        agent = Agent(name="coder", instructions="Fix app.py.", model=model, tools=list(fts))
        result = await Runner.run(agent, "Raise the retries to 5.")
        model.assert_complete()
    out = outputs(result)
    assert out["call_ls"] == "app.py\n"
    assert out["call_red"].endswith("[exit code: 1]")
    assert "RETRIES = 5" in out["call_edit"]
    assert out["call_green"] == "green\n"
    assert out["call_bad"].startswith('path "app.py" is not absolute')
    assert out["call_broken"] == "invalid arguments: malformed JSON at byte 1"
    assert result.final_output == "The retries are 5 now."
    assert app.read_text() == "RETRIES = 5\n"


async def test_call_id_reaches_the_runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The model's call_id is shellport's call id (the presentation's terminal id)."""
    cards: list[dict[str, Any]] = []
    with shellport.Runtime({"profile": "persistent"}) as rt, rt.session(tmp_path) as s:
        real_acall = s.acall

        async def recording_acall(*args: Any, **kwargs: Any) -> shellport.ToolResult:
            r = await real_acall(*args, **kwargs)
            cards.append(r.presentation)
            return r

        monkeypatch.setattr(s, "acall", recording_acall)
        model = ScriptedModel(
            [
                [function_call("bash", {"command": "echo hi"}, call_id="toolu_42")],
                [assistant_message("ok")],
            ]
        )
        result = await Runner.run(Agent(name="a", model=model, tools=tools(s)), "say hi")
    assert outputs(result) == {"toolu_42": "hi\n"}
    assert [c["_meta"]["terminal_exit"]["terminal_id"] for c in cards] == ["toolu_42"]
