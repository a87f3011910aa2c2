"""Every presentation shellport produces is valid ACP (issue 14).

Each result's presentation, for every tool and outcome (success, failure,
timeout, truncation, malformed arguments, background tasks), through both
transports, is wrapped as the two session updates a bridge sends — the
``tool_call`` card and the final ``tool_call_update`` — and

1. validated against the ACP JSON Schema (testdata/acp/schema.json, the tag
   the pinned ``agent-client-protocol`` package was generated from);
2. round-tripped through the package's pydantic models and compared with
   the original. The models quietly replace an invalid ``kind``, ``status``,
   ``rawInput`` or ``rawOutput`` with None and drop invalid content items,
   so "it parsed" proves nothing; only the comparison does
   (``test_round_trip_catches_salvaged_fields`` shows it);
3. checked against conventions the schema does not express: the kinds of
   docs/TOOLS.md, ``_meta.terminal_*`` naming the call id, lines from 1,
   and the status rule (a command that did not exit 0 is ``failed``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from acp.schema import ToolCallProgress, ToolCallStart

import shellport

SCHEMA = json.loads((Path(__file__).parents[2] / "testdata" / "acp" / "schema.json").read_text())
KINDS = {"bash": "execute", "bash_output": "read", "bash_kill": "other", "str_replace_editor": None}


def validator() -> jsonschema.Draft202012Validator:
    root = {
        "$schema": SCHEMA["$schema"],
        "$defs": SCHEMA["$defs"],
        "$ref": "#/$defs/SessionNotification",
    }
    return jsonschema.Draft202012Validator(root)


VALIDATOR = validator()


def updates(call_id: str, presentation: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The tool_call card and the final tool_call_update of one presentation."""
    yield {"sessionUpdate": "tool_call", "toolCallId": call_id, **presentation}
    yield {"sessionUpdate": "tool_call_update", "toolCallId": call_id, **presentation}


def check(tool: str, call_id: str, presentation: dict[str, Any]) -> None:
    assert presentation, f"{tool}: no presentation"
    for update in updates(call_id, presentation):
        where = f"{tool} {update['sessionUpdate']}: {json.dumps(presentation)[:300]}"
        errors = [
            e.message for e in VALIDATOR.iter_errors({"sessionId": "sess-1", "update": update})
        ]
        assert errors == [], where
        model = (
            ToolCallStart if update["sessionUpdate"] == "tool_call" else ToolCallProgress
        ).model_validate(update)
        back = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
        assert back == json.loads(json.dumps(update)), where
    kind = KINDS.get(tool)
    if presentation["kind"] != "other" or tool == "bash_kill":
        assert kind is None or presentation["kind"] == kind
    for loc in presentation.get("locations", []):
        assert loc.get("line", 1) >= 1
    meta = presentation.get("_meta", {})
    for key in ("terminal_info", "terminal_exit"):
        if key in meta:
            assert meta[key]["terminal_id"] == call_id
    if "terminal_exit" in meta:
        exit_ = meta["terminal_exit"]
        ok = exit_["exit_code"] == 0 and exit_["signal"] is None
        timed_out = bool(presentation.get("rawOutput", {}).get("timed_out"))
        assert presentation["status"] == ("completed" if ok and not timed_out else "failed"), where


class Caller:
    """Calls tools with fresh call ids and checks each presentation."""

    def __init__(self, session: shellport.Session) -> None:
        self.session = session
        self.n = 0
        self.seen: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, tool: str, arguments: Any) -> shellport.ToolResult:
        self.n += 1
        call_id = f"toolu_{self.n:02d}"
        r = self.session.call(tool, arguments, call_id=call_id)
        check(tool, call_id, r.presentation)
        self.seen.append((tool, r.presentation))
        return r


def test_oneshot_presentations(tmp_path: Path, transport: str) -> None:
    config = {
        "tools": {"bash": {"maxOutputChars": 1000}, "str_replace_editor": {"maxOutputChars": 1000}}
    }
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "f.txt").write_text("a\tb\r\n" * 3)
    with shellport.Runtime(config, transport) as rt, rt.session(tmp_path) as s:
        call = Caller(s)
        desc = {"description": "Run a command for the ACP test"}
        assert call("bash", {"command": "echo hi", **desc}).meta["exitCode"] == 0
        call("bash", {"command": "echo out; echo err >&2; exit 7", **desc})
        call("bash", {"command": "kill -9 $$", **desc})
        call("bash", {"command": "sleep 30", "timeoutMs": 200, **desc})
        assert call("bash", {"command": "seq 1 2000", **desc}).meta["truncated"] is True
        call("bash", {"command": "printf '```\\n'; echo '\x1b[31mred\x1b[0m'", **desc})
        call("bash", {"command": "pwd", "workdir": "dir", **desc})
        call("bash", {"command": 42, **desc})  # malformed: wrong type
        call("bash", {"command": "true", "bogus": 1, **desc})  # malformed: unknown argument
        call("bash", {"command": "  ", **desc})
        call("bash", {})
        task = call("bash", {"command": "sleep 30", "run_in_background": True, **desc}).meta[
            "taskId"
        ]
        call("bash_output", {"task_id": task})
        call("bash_kill", {"task_id": task})
        call("bash_kill", {"task_id": task})
        call("bash_output", {"task_id": "bash-99"})
        call("bash_output", {"task_id": 7})
        f = str(tmp_path / "dir" / "f.txt")
        call("str_replace_editor", {"command": "view", "path": f})
        call("str_replace_editor", {"command": "view", "path": f, "view_range": [2, 3]})
        call("str_replace_editor", {"command": "view", "path": str(tmp_path)})
        call(
            "str_replace_editor",
            {"command": "create", "path": str(tmp_path / "new.py"), "file_text": "x = 1\n"},
        )
        call(
            "str_replace_editor",
            {"command": "create", "path": str(tmp_path / "new.py"), "file_text": "again"},
        )
        call(
            "str_replace_editor",
            {"command": "str_replace", "path": f, "old_str": "a\tb", "new_str": "c"},
        )
        call(
            "str_replace_editor",
            {
                "command": "str_replace",
                "path": str(tmp_path / "new.py"),
                "old_str": "x = 1",
                "new_str": "x = 2",
            },
        )
        call(
            "str_replace_editor",
            {
                "command": "insert",
                "path": str(tmp_path / "new.py"),
                "insert_line": 0,
                "new_str": "# top",
            },
        )
        call("str_replace_editor", {"command": "view", "path": "relative.py"})
        call("str_replace_editor", {"command": "frobnicate", "path": f})
        call("str_replace_editor", {"command": "view"})
    statuses = {p["status"] for _, p in call.seen}
    assert statuses == {"completed", "failed"}


def test_persistent_presentations(tmp_path: Path, transport: str) -> None:
    config = {
        "profile": "persistent",
        "tools": {"bash": {"timeoutMs": 500, "maxOutputChars": 1000}},
    }
    with shellport.Runtime(config, transport) as rt, rt.session(tmp_path) as s:
        call = Caller(s)
        call("bash", {"command": "cd /tmp && echo ok"})
        call("bash", {"command": "false"})
        assert call("bash", {"command": "sleep 30"}).meta["timedOut"] is True
        assert call("bash", {"command": "seq 1 3000"}).meta["truncated"] is True
        call("bash", {"command": "printf '\\xff\\xfe\\n'"})
        call("bash", {"command": "exit 3"})
        call("bash", {"command": "kill -9 $$"})
        call("bash", {"command": ""})
        call("bash", {"command": None})
        call("bash", {"cmd": "ls"})


def test_round_trip_catches_salvaged_fields() -> None:
    """Why the comparison matters: the models accept bad data silently."""
    bad = {
        "sessionUpdate": "tool_call",
        "toolCallId": "x",
        "title": "t",
        "kind": "shell",
        "content": [{"type": "bogus"}],
    }
    model = ToolCallStart.model_validate(bad)  # no error
    back = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
    assert back != bad
    assert back.get("kind") is None
    assert back.get("content") == []
    assert list(VALIDATOR.iter_errors({"sessionId": "s", "update": bad})) != []
    with pytest.raises(AssertionError):
        check(
            "bash", "x", {k: v for k, v in bad.items() if k not in ("sessionUpdate", "toolCallId")}
        )


def check_stages(call_id: str, stages: dict[str, Any], terminal: bool) -> None:
    """Issue 17: every stage of a presentation is a valid ACP update.

    The call card goes out as ``tool_call``, the running update and the
    completed card as ``tool_call_update``; each is validated against the
    schema and round-tripped through the models. A running or completed
    terminal payload appears only when the card registered a terminal.
    """
    sent = [
        ("tool_call", stages["call"], ToolCallStart),
        ("tool_call_update", stages["running"], ToolCallProgress),
    ]
    if "completed" in stages:
        sent.append(("tool_call_update", stages["completed"], ToolCallProgress))
    for kind, presentation, model_type in sent:
        update = {"sessionUpdate": kind, "toolCallId": call_id, **presentation}
        where = f"{kind}: {json.dumps(presentation)[:300]}"
        errors = [
            e.message for e in VALIDATOR.iter_errors({"sessionId": "sess-1", "update": update})
        ]
        assert errors == [], where
        back = model_type.model_validate(update).model_dump(
            mode="json", by_alias=True, exclude_unset=True
        )
        assert back == json.loads(json.dumps(update)), where
    registered = "terminal_info" in stages["call"].get("_meta", {})
    assert registered == terminal
    for _, presentation, _ in sent[1:]:
        meta = presentation.get("_meta", {})
        has_terminal = any(k.startswith("terminal_") for k in meta)
        assert has_terminal == registered, presentation
        for key in ("terminal_output", "terminal_exit"):
            if key in meta:
                assert meta[key]["terminal_id"] == call_id
    assert stages["running"]["status"] == "in_progress"
    assert "content" not in stages["running"]  # an update's content replaces the card's


@pytest.mark.parametrize("profile", ["oneshot", "persistent"])
def test_presentation_stages(tmp_path: Path, transport: str, profile: str) -> None:
    """The call card before execution, the running update, the completed card
    and its replay from the logged call and result, malformed arguments."""
    (tmp_path / "sub").mkdir()
    config = {"profile": profile, "tools": {"bash": {"maxOutputChars": 1000}}}
    desc = {"description": "Run a command for the ACP test"} if profile == "oneshot" else {}
    with shellport.Runtime(config, transport) as rt, rt.session(tmp_path) as s:
        args: dict[str, Any] = {"command": "pwd; printf 'x\\n\\n\\n'", **desc}
        if profile == "oneshot":
            args["workdir"] = "sub"
        before = s.present("bash", args, call_id="toolu_s1", output="partial\n")
        check_stages("toolu_s1", before, terminal=True)
        cwd = tmp_path / "sub" if profile == "oneshot" else tmp_path
        assert before["call"]["_meta"]["terminal_info"]["cwd"] == str(cwd)
        pieces: list[str] = []
        r = s.call("bash", args, call_id="toolu_s1", on_output=pieces.append)
        for piece in pieces:  # what a bridge sends while the command runs
            check_stages(
                "toolu_s1", s.present("bash", args, call_id="toolu_s1", output=piece), True
            )
        replay = rt.present("bash", args, result=r.raw, call_id="toolu_s1", cwd=tmp_path)
        check_stages("toolu_s1", replay, terminal=True)
        assert replay["completed"] == r.presentation
        fenced = r.presentation["content"][-1]["content"]["text"]
        assert fenced.endswith("x\n```")  # trailing blank lines trimmed
        assert r.presentation["rawOutput"]["output"].endswith("x\n\n\n")  # raw kept
        for bad in ({"command": 42}, {"cmd": "ls"}, "not an object", None):
            stages = rt.present("bash", bad, result={"content": "junk"}, call_id="toolu_s2")
            check_stages("toolu_s2", stages, terminal=False)
        if profile == "oneshot":
            bg = {"command": "sleep 1", "run_in_background": True, **desc}
            launched = s.call("bash", bg, call_id="toolu_s3")
            stages = s.present("bash", bg, result=launched, call_id="toolu_s3")
            check_stages("toolu_s3", stages, terminal=False)
