"""The Python API on both transports: initialize, sessions, tools/list, calls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import shellport


def test_initialize_reports_the_runtime(rt: shellport.Runtime, transport: str) -> None:
    assert rt.version == shellport.__version__
    assert rt.profile == "oneshot"
    assert rt.transport_name == transport
    assert {"_echo", "_sleep", "_panic", "_notify"} <= set(rt.tool_names)


def test_echo_round_trip(session: shellport.Session, tmp_path: Path) -> None:
    args = {"text": "héllo ✓", "n": 3, "nested": {"list": [1, None, True]}}
    r = session.call("_echo", args)
    assert isinstance(r, shellport.ToolResult)
    assert json.loads(r.text) == args
    assert r.is_error is False
    assert r.meta["cwd"] == str(tmp_path)
    assert r.meta["session"] == session.id
    assert r.presentation["title"] == "_echo"
    assert r.content == [{"type": "text", "text": r.text}]
    assert r.raw["isError"] is False


def test_session_has_id_and_cwd(rt: shellport.Runtime, tmp_path: Path) -> None:
    s = rt.session(str(tmp_path), id="mine:1")
    assert (s.id, s.cwd) == ("mine:1", str(tmp_path))
    assert s.runtime is rt
    with pytest.raises(shellport.InvalidParams, match="already exists"):
        rt.session(tmp_path, id="mine:1")


def test_runtime_made_session_ids_differ(rt: shellport.Runtime, tmp_path: Path) -> None:
    ids = {rt.session(tmp_path).id for _ in range(5)}
    assert len(ids) == 5


@pytest.mark.parametrize(
    ("cwd", "fragment"),
    [
        ("relative/dir", "not absolute"),
        ("", "required"),
        ("/definitely/not/here/shellport", "does not exist"),
    ],
)
def test_bad_cwd_is_invalid_params(rt: shellport.Runtime, cwd: str, fragment: str) -> None:
    with pytest.raises(shellport.InvalidParams, match=fragment) as info:
        rt.session(cwd)
    assert info.value.code == -32602


def test_cwd_that_is_a_file(rt: shellport.Runtime, tmp_path: Path) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(shellport.InvalidParams, match="not a directory"):
        rt.session(f)


def test_session_env_reaches_the_tool(rt: shellport.Runtime, tmp_path: Path) -> None:
    s = rt.session(tmp_path, env={"GREETING": "hi there", "EMPTY": ""})
    assert s.call("_echo", {}).meta["env"] == {"GREETING": "hi there", "EMPTY": ""}


def test_closed_session_is_unknown(rt: shellport.Runtime, tmp_path: Path) -> None:
    s = rt.session(tmp_path)
    s.close()
    s.close()  # twice is fine
    with pytest.raises(shellport.SessionNotFound, match=repr(s.id).replace("'", '"')):
        s.call("_echo", {})


def test_session_context_manager(rt: shellport.Runtime, tmp_path: Path) -> None:
    with rt.session(tmp_path) as s:
        assert s.call("_echo", {}).text == "{}"
    with pytest.raises(shellport.SessionNotFound):
        s.call("_echo", {})


async def test_session_async_context_manager(rt: shellport.Runtime, tmp_path: Path) -> None:
    async with rt.session(tmp_path) as s:
        assert (await s.acall("_echo", {"a": 1})).text == '{"a":1}'
    with pytest.raises(shellport.SessionNotFound):
        await s.acall("_echo", {})


# --- tools/list ------------------------------------------------------------------------


def test_tools_mcp(rt: shellport.Runtime) -> None:
    tools = rt.tools()
    assert tools == rt.tools(format="mcp")
    assert [t["name"] for t in tools] == rt.tool_names
    for t in tools:
        assert set(t) == {"name", "description", "inputSchema"}
        assert t["inputSchema"]["type"] == "object"


def test_tools_anthropic(rt: shellport.Runtime) -> None:
    tools = rt.tools(format="anthropic")
    mcp = rt.tools(format="mcp")
    assert [set(t) for t in tools] == [{"name", "description", "input_schema"}] * len(mcp)
    assert [t["input_schema"] for t in tools] == [t["inputSchema"] for t in mcp]


def test_tools_openai(rt: shellport.Runtime) -> None:
    tools = rt.tools(format="openai")
    for t in tools:
        assert t["type"] == "function"
        assert set(t["function"]) == {"name", "description", "parameters"}


def test_tools_openai_strict(rt: shellport.Runtime) -> None:
    natural = {t["name"]: t["inputSchema"] for t in rt.tools(format="mcp")}
    for t in rt.tools(format="openai", strict=True):
        fn = t["function"]
        assert fn["strict"] is True
        params = fn["parameters"]
        assert params["additionalProperties"] is False
        assert sorted(params["required"]) == sorted(params["properties"])
        # Properties that were optional became nullable; required ones did not.
        was_required = set(natural[fn["name"]].get("required", []))
        for name, prop in params["properties"].items():
            types = prop.get("type")
            nullable = (isinstance(types, list) and "null" in types) or "anyOf" in prop
            assert nullable == (name not in was_required), (fn["name"], name)


def test_tools_bad_format(rt: shellport.Runtime) -> None:
    with pytest.raises(shellport.InvalidParams, match="unknown format"):
        rt.tools(format="yaml")
    with pytest.raises(shellport.InvalidParams, match="strict"):
        rt.tools(format="mcp", strict=True)


def test_profile_from_config(transport: str) -> None:
    with shellport.Runtime({"profile": "persistent", "testTools": True}, transport) as rt:
        assert rt.profile == "persistent"


async def test_call_id_reaches_the_tool(session: shellport.Session) -> None:
    assert session.call("_echo", {}, call_id="toolu_01").meta["callId"] == "toolu_01"
    assert (await session.acall("_echo", {}, call_id="toolu_02")).meta["callId"] == "toolu_02"
    made = session.call("_echo", {}).meta["callId"]
    assert made.startswith("call-"), made
