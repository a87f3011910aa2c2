"""Every presentation of the vendors' tools is valid ACP (issues 13, 14): the
checks of test_acp.py (the ACP schema, the package's models by round trip,
the status rule) over the anthropic and openai profiles, both transports."""

from __future__ import annotations

from pathlib import Path

from test_acp import Caller

import shellport

EDITOR = "str_replace_based_edit_tool"


def test_anthropic_presentations(tmp_path: Path, transport: str) -> None:
    f = tmp_path / "f.py"
    f.write_text("a = 1\n\tb = 2\n")
    config = {"profile": "anthropic", "tools": {"bash": {"timeoutMs": 500}}}
    with shellport.Runtime(config, transport) as rt, rt.session(tmp_path) as s:
        call = Caller(s)
        call("bash", {"command": "echo hi"})
        call("bash", {"command": "false"})
        call("bash", {"command": "sleep 30"})
        call("bash", {"restart": True})
        call("bash", {"restart": True, "command": "ls"})
        call("bash", {})
        call(EDITOR, {"command": "view", "path": str(f)})
        call(
            EDITOR, {"command": "insert", "path": str(f), "insert_line": 0, "insert_text": "# x\n"}
        )
        call(
            EDITOR,
            {"command": "str_replace", "path": str(f), "old_str": "a = 1", "new_str": "a = 2"},
        )
        call(EDITOR, {"command": "undo_edit", "path": str(f)})
        call(EDITOR, {"command": "view"})
    config = {"profile": "anthropic", "tools": {EDITOR: {"type": "text_editor_20250124"}}}
    with shellport.Runtime(config, transport) as rt, rt.session(tmp_path) as s:
        call = Caller(s)
        call(
            "str_replace_editor",
            {"command": "create", "path": str(tmp_path / "n.py"), "file_text": "x\n"},
        )
        call("str_replace_editor", {"command": "undo_edit", "path": str(tmp_path / "n.py")})
        call("str_replace_editor", {"command": "undo_edit", "path": str(tmp_path / "n.py")})


def test_openai_presentations(tmp_path: Path, transport: str) -> None:
    config = {"profile": "openai", "tools": {"shell": {"maxOutputChars": 500}}}
    with shellport.Runtime(config, transport) as rt, rt.session(tmp_path) as s:
        call = Caller(s)
        call("shell", {"action": {"commands": ["echo hi", "ls"]}})
        call("shell", {"action": {"commands": ["false", "true"]}})
        call("shell", {"action": {"commands": ["sleep 30", "echo no"], "timeout_ms": 300}})
        call("shell", {"action": {"commands": ["seq 1 5000"], "max_output_length": 100}})
        call("shell", {"action": {"commands": ["kill -9 $$"]}})
        call("shell", {"action": {"commands": []}})
        call("shell", {"commands": ["ls"]})
        call("apply_patch", {"operation": {"type": "create_file", "path": "a.txt", "diff": "+a\n"}})
        call(
            "apply_patch",
            {"operation": {"type": "update_file", "path": "a.txt", "diff": "@@\n-a\n+b\n"}},
        )
        call("apply_patch", {"operation": {"type": "delete_file", "path": "missing.txt"}})
