"""OpenAI Agents SDK: its native ShellTool and ApplyPatchTool, served by the
openai profile's shell and apply_patch, driven by the SDK's own ScriptedModel
through its Runner (issues 13, 14)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents import Agent, ApplyPatchTool, Runner, ShellTool
from agents.items import ToolCallOutputItem
from agents.testing import ScriptedModel, assistant_message
from openai.types.responses import ResponseFunctionShellToolCall
from vendor_clients import CALC, RUN_TESTS, make_repo

import shellport
from shellport.integrations.openai_agents import apply_patch_tool, shell_tool


def shell(call_id: str, commands: list[str], **limits: int) -> ResponseFunctionShellToolCall:
    return ResponseFunctionShellToolCall.model_validate(
        {
            "type": "shell_call",
            "id": "sh_" + call_id,
            "call_id": call_id,
            "status": "completed",
            "action": {"commands": commands, **limits},
        }
    )


def patch(call_id: str, operation: dict[str, Any]) -> dict[str, Any]:
    return {"type": "apply_patch_call", "call_id": call_id, "operation": operation}


async def test_scripted_trajectory(tmp_path: Path, transport: str) -> None:
    """Explore, test, patch, test: the raw items the model reads are ours."""
    repo = make_repo(tmp_path)
    fix = "@@ def add(a, b):\n-\treturn a - b\n+\treturn a + b\n"
    with shellport.Runtime({"profile": "openai"}, transport) as rt, rt.session(repo) as s:
        tools = [shell_tool(s), apply_patch_tool(s)]
        assert isinstance(tools[0], ShellTool)
        assert isinstance(tools[1], ApplyPatchTool)
        model = ScriptedModel(
            [
                [shell("explore", ["ls", RUN_TESTS])],
                [patch("fix", {"type": "update_file", "path": "calc.py", "diff": fix})],
                [patch("bad", {"type": "update_file", "path": "calc.py", "diff": fix})],
                [shell("green", [RUN_TESTS, "seq 1 5000"], max_output_length=200)],
                [shell("slow", ["sleep 60", "echo never"], timeout_ms=1500)],
                [assistant_message("Fixed.")],
            ]
        )
        agent = Agent(name="coder", instructions="Fix calc.py.", model=model, tools=list(tools))
        result = await Runner.run(agent, "Make the tests pass.")
        model.assert_complete()
    raw = {
        str(i.raw_item["call_id"]): i.raw_item
        for i in result.new_items
        if isinstance(i, ToolCallOutputItem) and isinstance(i.raw_item, dict)
    }
    ls, red = raw["explore"]["output"]
    assert ls["stdout"] == "calc.py\ntest_calc.py\n"
    assert red["outcome"] == {"type": "exit", "exit_code": 1}
    assert "FAILED" in red["stderr"]

    assert raw["fix"]["status"] == "completed"
    assert raw["fix"]["output"].startswith("Updated calc.py")
    assert raw["bad"]["status"] == "failed"  # the same hunk does not fit twice
    assert "no file was changed" in raw["bad"]["output"]
    assert (repo / "calc.py").read_bytes() == CALC.replace("a - b", "a + b").encode()

    green, seq = raw["green"]["output"]
    assert green["outcome"] == {"type": "exit", "exit_code": 0}
    assert raw["green"]["max_output_length"] == 200
    assert sum(len(o["stdout"]) + len(o["stderr"]) for o in (green, seq)) <= 200
    assert seq["stdout"].endswith("5000\n")

    assert [o["outcome"]["type"] for o in raw["slow"]["output"]] == ["timeout"]
    assert result.final_output == "Fixed."
