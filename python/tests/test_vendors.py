"""shellport.vendors without the vendors' SDKs: plain dicts in, plain dicts out
(issue 13). The SDK round trips are in tests-integrations, where the SDKs
are installed; here neither is, and neither may be imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import shellport
from shellport.vendors.anthropic import atool_results, tool_results
from shellport.vendors.openai import aoutputs, outputs


def test_no_sdk_needed() -> None:
    code = (
        "import sys, shellport.vendors.anthropic, shellport.vendors.openai;"
        "print(sorted(m for m in ('anthropic', 'openai') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "[]\n"


def test_anthropic_dicts(tmp_path: Path, transport: str) -> None:
    reply = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "cd / && pwd"}},
            {"type": "tool_use", "id": "t2", "name": "bash", "input": {"command": "pwd; (exit 3)"}},
            {"type": "tool_use", "id": "t3", "name": "bash", "input": {"restart": True}},
            {"type": "tool_use", "id": "t4", "name": "bash", "input": {"command": "pwd"}},
            {"type": "tool_use", "id": "t5", "name": "bash", "input": {"cmd": "ls"}},
        ],
    }
    with shellport.Runtime({"profile": "anthropic"}, transport) as rt, rt.session(tmp_path) as s:
        blocks = tool_results(s, reply)
    assert blocks[:2] == [
        {"type": "tool_result", "tool_use_id": "t1", "is_error": False, "content": "/\n"},
        {
            "type": "tool_result",
            "tool_use_id": "t2",
            "is_error": False,
            "content": "/\n[exit code: 3]",
        },
    ]
    assert blocks[2]["content"].startswith("The shell was restarted")
    assert blocks[3]["content"] == f"{tmp_path}\n"
    assert blocks[4]["is_error"] is True
    assert 'unknown argument "cmd"' in blocks[4]["content"]


async def test_async_dicts(tmp_path: Path, transport: str) -> None:
    with shellport.Runtime({"profile": "openai"}, transport) as rt, rt.session(tmp_path) as s:
        out = await aoutputs(
            s,
            {
                "output": [
                    {
                        "type": "shell_call",
                        "call_id": "c1",
                        "action": {"commands": ["echo hi", "echo err >&2; exit 5"]},
                    },
                    {
                        "type": "apply_patch_call",
                        "call_id": "c2",
                        "operation": {"type": "create_file", "path": "a.txt", "diff": "+a\n"},
                    },
                ]
            },
        )
    assert out == [
        {
            "type": "shell_call_output",
            "call_id": "c1",
            "output": [
                {"stdout": "hi\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}},
                {"stdout": "", "stderr": "err\n", "outcome": {"type": "exit", "exit_code": 5}},
            ],
        },
        {
            "type": "apply_patch_call_output",
            "call_id": "c2",
            "status": "completed",
            "output": "Created a.txt (1 line).",
        },
    ]
    assert (tmp_path / "a.txt").read_text() == "a\n"


async def test_anthropic_async_and_openai_sync(tmp_path: Path, transport: str) -> None:
    with shellport.Runtime({"profile": "anthropic"}, transport) as rt, rt.session(tmp_path) as s:
        blocks = await atool_results(
            s, [{"type": "tool_use", "id": "a", "name": "bash", "input": {"command": "echo x"}}]
        )
    assert blocks == [
        {"type": "tool_result", "tool_use_id": "a", "is_error": False, "content": "x\n"}
    ]
    with shellport.Runtime({"profile": "persistent"}, transport) as rt, rt.session(tmp_path) as s:
        out = outputs(
            s,
            [
                {
                    "type": "function_call",
                    "call_id": "f",
                    "name": "bash",
                    "arguments": '{"command": "echo y"}',
                },
                {"type": "message", "role": "assistant", "content": []},
            ],
        )
    assert out == [{"type": "function_call_output", "call_id": "f", "output": "y\n"}]
