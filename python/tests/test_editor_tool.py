"""str_replace_editor (issue 5) through the Python API, on both transports:
the main paths, checked byte for byte on real files. The Go tests in
tools/editor cover every behaviour in depth.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import shellport

EDITOR = "str_replace_editor"


@pytest.fixture(params=["oneshot", "persistent"])
def profile(request: pytest.FixtureRequest) -> str:
    """The editor is mounted in every profile."""
    name: str = request.param
    return name


@pytest.fixture
def ed(transport: str, tmp_path: Path) -> Iterator[shellport.Session]:
    """A session of a default-profile runtime."""
    with shellport.Runtime(transport=transport) as rt:
        # Every build mounts the editor: a missing one fails (issue 18).
        assert EDITOR in rt.tool_names, rt.tool_names
        with rt.session(tmp_path) as s:
            yield s


def edit(s: shellport.Session, **args: Any) -> shellport.ToolResult:
    """Call the editor; a tool error fails the test."""
    r = s.call(EDITOR, args)
    assert r.is_error is False, r.text
    return r


def refused(s: shellport.Session, **args: Any) -> str:
    """Call the editor and require an error; return its text."""
    r = s.call(EDITOR, args)
    assert r.is_error is True, r.text
    return r.text


def numbered(first: int, *lines: str) -> str:
    """Lines as view shows them: %6d, a tab, the line."""
    return "\n".join(f"{n:6d}\t{line}" for n, line in enumerate(lines, first))


SOURCE = "def f():\n\treturn 1\n\nx = 1\nx = 1\n"


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "src.py"
    path.write_text(SOURCE)
    return path


# --- view -------------------------------------------------------------------------------


def test_view_numbers_lines_and_shows_tabs_raw(ed: shellport.Session, source: Path) -> None:
    r = edit(ed, command="view", path=str(source))
    assert r.text == numbered(1, "def f():", "\treturn 1", "", "x = 1", "x = 1")
    assert r.meta["totalLines"] == 5
    assert r.meta["truncated"] is False


def test_a_viewed_line_is_valid_old_str(ed: shellport.Session, source: Path) -> None:
    view = edit(ed, command="view", path=str(source)).text
    line = view.splitlines()[1].split("\t", 1)[1]
    assert line == "\treturn 1"
    edit(ed, command="str_replace", path=str(source), old_str=line, new_str="\treturn 2")
    assert source.read_text() == SOURCE.replace("\treturn 1", "\treturn 2")


def test_view_range(ed: shellport.Session, source: Path) -> None:
    path = str(source)
    r = edit(ed, command="view", path=path, view_range=[2, 3])
    assert r.text == numbered(2, "\treturn 1", "") + "\n[lines 2-3 of 5]"
    assert (r.meta["firstLine"], r.meta["lastLine"]) == (2, 3)
    r = edit(ed, command="view", path=path, view_range=[4, -1])
    assert r.text == numbered(4, "x = 1", "x = 1") + "\n[lines 4-5 of 5]"
    r = edit(ed, command="view", path=path, view_range=[4, 99])
    assert r.text.startswith(numbered(4, "x = 1", "x = 1") + "\n")
    assert "past the last line" in r.text
    assert r.meta["lastLine"] == 5
    assert "past the end" in refused(ed, command="view", path=path, view_range=[9, 10])


def test_view_of_a_long_file_is_cut_on_whole_lines(ed: shellport.Session, tmp_path: Path) -> None:
    lines = [f"line {i} " + "x" * 60 for i in range(1, 1001)]
    path = tmp_path / "long.txt"
    path.write_text("\n".join(lines) + "\n")
    r = edit(ed, command="view", path=str(path))
    assert r.meta["truncated"] is True
    last = r.meta["lastLine"]
    body, _, note = r.text.rpartition("\n")
    assert body == numbered(1, *lines[:last])
    assert f"view_range [{last + 1}, " in note


def test_directory_listing(ed: shellport.Session, tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "src" / "deep" / "deeper").mkdir(parents=True)
    (root / "src" / "app.py").write_text("")
    (root / "node_modules" / "pkg").mkdir(parents=True)
    (root / "with space.txt").write_text("")
    (root / ".git").mkdir()
    (root / ".env").write_text("")
    r = edit(ed, command="view", path=str(root))
    listed = [line for line in r.text.splitlines() if not line.startswith("[")]
    assert listed == [
        f"{root}/",
        f"{root}/node_modules/",
        f"{root}/src/",
        f"{root}/src/app.py",
        f"{root}/src/deep/",
        f"{root}/with space.txt",
    ]
    assert "node_modules/" in r.text.splitlines()[-2]  # named as not expanded
    assert r.text.splitlines()[-1].startswith("[2 hidden entries")
    assert r.meta["hidden"] == 2
    assert r.presentation["title"] == f"List {root}"
    assert r.presentation["kind"] == "read"


# --- create -----------------------------------------------------------------------------


def test_create_writes_exact_bytes_and_refuses_existing(
    ed: shellport.Session, tmp_path: Path
) -> None:
    path = tmp_path / "new" / "dir" / "file.txt"
    text = "first\n\tsecond\r\nno final newline"
    r = edit(ed, command="create", path=str(path), file_text=text)
    assert path.read_bytes() == text.encode()
    assert r.presentation["title"] == f"Write {path}"
    assert r.presentation["kind"] == "edit"
    diffs = [b for b in r.presentation["content"] if b.get("type") == "diff"]
    assert diffs == [{"type": "diff", "path": str(path), "newText": text}]

    message = refused(ed, command="create", path=str(path), file_text="other")
    assert "already exists" in message
    assert path.read_bytes() == text.encode()


# --- str_replace ------------------------------------------------------------------------


def test_str_replace_unique(ed: shellport.Session, source: Path) -> None:
    r = edit(
        ed, command="str_replace", path=str(source), old_str="\treturn 1", new_str="\treturn 42"
    )
    assert source.read_text() == SOURCE.replace("\treturn 1", "\treturn 42")
    assert numbered(2, "\treturn 42") in r.text  # the snippet, numbered like view
    assert r.meta["line"] == 2
    p = r.presentation
    assert (p["title"], p["kind"]) == (f"Edit {source}", "edit")
    assert {
        "type": "diff",
        "path": str(source),
        "oldText": "\treturn 1",
        "newText": "\treturn 42",
    } in p["content"]
    assert p["locations"] == [{"path": str(source), "line": 2}]


def test_str_replace_without_a_match_quotes_old_str(ed: shellport.Session, source: Path) -> None:
    message = refused(ed, command="str_replace", path=str(source), old_str="not there", new_str="y")
    assert 'old_str: "not there"' in message
    assert source.read_text() == SOURCE


def test_str_replace_hints_at_tabs_versus_spaces(ed: shellport.Session, source: Path) -> None:
    message = refused(
        ed, command="str_replace", path=str(source), old_str="    return 1", new_str=""
    )
    assert "hint:" in message
    assert "line 2" in message
    assert source.read_text() == SOURCE


def test_str_replace_with_several_matches_lists_their_lines(
    ed: shellport.Session, source: Path
) -> None:
    message = refused(ed, command="str_replace", path=str(source), old_str="x = 1", new_str="y")
    assert "2 times" in message
    assert "lines 4 and 5" in message
    assert source.read_text() == SOURCE


def test_str_replace_without_new_str_deletes(ed: shellport.Session, source: Path) -> None:
    edit(ed, command="str_replace", path=str(source), old_str="def f():\n")
    assert source.read_text() == SOURCE.replace("def f():\n", "")


# --- insert -----------------------------------------------------------------------------


def test_insert(ed: shellport.Session, source: Path) -> None:
    path = str(source)
    r = edit(ed, command="insert", path=path, insert_line=0, new_str="import os\n")
    assert source.read_text() == "import os\n" + SOURCE
    assert numbered(1, "import os") in r.text
    assert r.presentation["title"] == f"Edit {source}"
    edit(ed, command="insert", path=path, insert_line=3, new_str="\t# two\n\t# lines")
    edit(ed, command="insert", path=path, insert_line=8, new_str="end")
    assert source.read_text() == (
        "import os\ndef f():\n\treturn 1\n\t# two\n\t# lines\n\nx = 1\nx = 1\nend\n"
    )
    assert "past the end" in refused(ed, command="insert", path=path, insert_line=99, new_str="z")


def test_insert_after_a_last_line_without_newline_does_not_glue(
    ed: shellport.Session, tmp_path: Path
) -> None:
    path = tmp_path / "nofinal.txt"
    path.write_bytes(b"a\nb")
    edit(ed, command="insert", path=str(path), insert_line=2, new_str="c")
    assert path.read_bytes() == b"a\nb\nc"


# --- bytes outside the edit -------------------------------------------------------------


def test_crlf_bom_and_missing_final_newline_survive_edits(
    ed: shellport.Session, tmp_path: Path
) -> None:
    path = tmp_path / "windows.txt"
    path.write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\nthree")
    view = edit(ed, command="view", path=str(path)).text
    assert view.startswith(numbered(1, "one", "two", "three") + "\n")  # no \r, no BOM

    edit(ed, command="str_replace", path=str(path), old_str="two", new_str="2\nzwei")
    assert path.read_bytes() == b"\xef\xbb\xbfone\r\n2\r\nzwei\r\nthree"
    edit(ed, command="insert", path=str(path), insert_line=1, new_str="x\n")
    assert path.read_bytes() == b"\xef\xbb\xbfone\r\nx\r\n2\r\nzwei\r\nthree"
    edit(ed, command="str_replace", path=str(path), old_str="one\nx", new_str="uno")
    assert path.read_bytes() == b"\xef\xbb\xbfuno\r\n2\r\nzwei\r\nthree"


def test_mode_and_symlink_are_kept(ed: shellport.Session, tmp_path: Path) -> None:
    target = tmp_path / "script.sh"
    target.write_text("#!/bin/sh\necho old\n")
    target.chmod(0o751)
    link = tmp_path / "link.sh"
    link.symlink_to(target)
    edit(ed, command="str_replace", path=str(link), old_str="old", new_str="new")
    assert link.is_symlink()
    assert os.readlink(link) == str(target)
    assert target.read_text() == "#!/bin/sh\necho new\n"
    assert target.stat().st_mode & 0o777 == 0o751


# --- refusals ---------------------------------------------------------------------------


def test_relative_path_is_refused_with_the_cwd_hint(ed: shellport.Session, source: Path) -> None:
    message = refused(ed, command="view", path="src.py")
    assert message == (
        f'path "src.py" is not absolute; paths must start with /. Did you mean {ed.cwd}/src.py?'
    )
    assert "not absolute" in refused(
        ed, command="str_replace", path="src.py", old_str="x", new_str="y"
    )
    assert source.read_text() == SOURCE


def test_binary_file_is_refused(ed: shellport.Session, tmp_path: Path) -> None:
    path = tmp_path / "blob.bin"
    data = b"text\x00more\xff"
    path.write_bytes(data)
    assert "binary" in refused(ed, command="view", path=str(path))
    assert "binary" in refused(
        ed, command="str_replace", path=str(path), old_str="text", new_str="t"
    )
    assert "binary" in refused(ed, command="insert", path=str(path), insert_line=0, new_str="t")
    assert path.read_bytes() == data


def test_invalid_utf8_is_never_modified(ed: shellport.Session, tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    data = "café\nnaïve\n".encode("latin-1")
    path.write_bytes(data)
    assert "UTF-8" in refused(ed, command="str_replace", path=str(path), old_str="caf", new_str="c")
    view = edit(ed, command="view", path=str(path)).text
    assert "\ufffd" in view
    assert path.read_bytes() == data


# --- every profile ----------------------------------------------------------------------


def test_editor_in_every_profile(transport: str, profile: str, tmp_path: Path) -> None:
    with shellport.Runtime({"profile": profile}, transport) as rt:
        assert EDITOR in rt.tool_names, (profile, rt.tool_names)
        assert rt.profile == profile
        with rt.session(tmp_path) as s:
            path = tmp_path / "a.txt"
            edit(s, command="create", path=str(path), file_text="a\tb\n")
            assert edit(s, command="view", path=str(path)).text == numbered(1, "a\tb")
