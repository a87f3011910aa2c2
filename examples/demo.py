"""shellport demo: persistent bash and the editor, driven from Python.

Run with `make demo`. It makes a scratch project in a temporary directory,
then uses the tools the way an agent harness would: state that persists
between bash calls, a safe edit of a file with tabs and CRLF line endings,
a timeout that resets the shell, and the same calls over both transports.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

import shellport


def show(title: str, result: shellport.ToolResult) -> None:
    print(f"--- {title}")
    print(result.text.rstrip("\n"))
    facts = {k: v for k, v in result.meta.items() if v not in (None, False, "", 0)}
    if facts:
        print(f"    meta: {facts}")


def persistent_bash(rt: shellport.Runtime, workdir: Path) -> None:
    with rt.session(cwd=str(workdir)) as s:
        show("state persists: cd, export, a function", s.call("bash", {
            "command": "mkdir -p src && cd src && export GREETING=hello\n"
                       "greet() { echo \"$GREETING from $(pwd)\"; }",
        }))
        show("…in the next call", s.call("bash", {"command": "greet"}))
        show("a heredoc, a trailing comment, a non-zero exit", s.call("bash", {
            "command": "cat <<'EOF' > notes.txt\nline one\n\tline two, tabbed\nEOF\n"
                       "wc -l notes.txt  # count them\nfalse",
        }))
        show("a spoofing attempt cannot end the call early", s.call("bash", {
            "command": "echo '__SHELLPORT_DONE__ 0'; set | grep -c . >/dev/null; echo still here",
        }))
        show("a command that waits for input times out and resets the shell", s.call("bash", {
            "command": "read answer",
        }))
        show("the fresh shell starts in the session cwd again", s.call("bash", {"command": "pwd"}))


def editor(rt: shellport.Runtime, workdir: Path) -> None:
    path = workdir / "legacy.py"
    path.write_bytes(b"def f():\r\n\treturn 1\r\n\r\ndef g():\r\n\treturn 2\r\n")
    with rt.session(cwd=str(workdir)) as s:
        show("view numbers lines and keeps tabs", s.call(
            "str_replace_editor", {"command": "view", "path": str(path)}))
        show("str_replace on a CRLF file", s.call("str_replace_editor", {
            "command": "str_replace", "path": str(path),
            "old_str": "\treturn 2", "new_str": "\treturn 2 + 40",
        }))
        show("an ambiguous old_str is refused with line numbers", s.call("str_replace_editor", {
            "command": "str_replace", "path": str(path), "old_str": "\treturn", "new_str": "\tyield",
        }))
    data = path.read_bytes()
    assert data == b"def f():\r\n\treturn 1\r\n\r\ndef g():\r\n\treturn 2 + 40\r\n", data
    print("--- the file kept its CRLF endings and tabs byte for byte")


async def concurrent_sessions(rt: shellport.Runtime, workdir: Path) -> None:
    sessions = [rt.session(cwd=str(workdir)) for _ in range(4)]
    start = time.perf_counter()
    results = await asyncio.gather(*(
        s.acall("bash", {"command": f"sleep 0.5; echo session {i}"})
        for i, s in enumerate(sessions)
    ))
    took = time.perf_counter() - start
    print(f"--- four sessions ran in parallel ({took:.2f}s for four 0.5s sleeps):",
          ", ".join(r.text.strip() for r in results))
    for s in sessions:
        s.close()


def main() -> None:
    config = {"profile": "persistent", "tools": {"bash": {"timeoutMs": 2000}}}
    with tempfile.TemporaryDirectory(prefix="shellport-demo-") as tmp:
        workdir = Path(tmp)
        for transport in ("library", "process"):
            print(f"\n===== transport: {transport}")
            with shellport.Runtime(config, transport=transport) as rt:
                print(f"shellport {rt.version}, profile {rt.profile}, tools:",
                      ", ".join(t["name"] for t in rt.tools(format="mcp")))
                persistent_bash(rt, workdir)
                editor(rt, workdir)
                asyncio.run(concurrent_sessions(rt, workdir))
    print("\ndemo finished")


if __name__ == "__main__":
    main()
