"""The smoke test an installed wheel must pass: persistent and one-shot bash, the editor.

Run by the Python that has the wheel installed (smoke.py sets that up), never
from the source tree:

    python smoke_test.py library | process | ARGV_JSON [--helper-marker FILE]

ARGV_JSON is a command that speaks the protocol on stdio (the aarch64
executable or the C-ABI bridge under qemu). With --helper-marker, the test
also checks that the spawn helper named by SHELLPORT_SPAWN_HELPER ran (the
wrapper it points at appends to FILE).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time

import shellport


def fail(msg: str) -> None:
    raise SystemExit(f"smoke test failed: {msg}")


def smoke(transport: str | list[str], marker: str | None) -> None:
    here = os.path.dirname(os.path.abspath(shellport.__file__))
    if here.startswith(os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))):
        fail(f"shellport was imported from the source tree ({here}), not from the wheel")
    with tempfile.TemporaryDirectory(prefix="shellport-smoke-") as work:
        work = os.path.realpath(work)
        config = {"profile": "persistent"}
        with shellport.Runtime(config=config, transport=transport) as rt:
            if rt.version != shellport.__version__:
                fail(f"runtime {rt.version} != package {shellport.__version__}")
            if isinstance(transport, str) and rt.transport_name != transport:
                fail(f"asked for {transport}, got {rt.transport_name}")
            with rt.session(cwd=work) as s:
                # The wheel's helper has the turn builtin beside it on
                # Linux; a helper named by SHELLPORT_SPAWN_HELPER has not.
                turn = sys.platform.startswith("linux") and marker is None and isinstance(transport, str)
                _persistent_bash(s, work, turn)
                _editor(s, work)
        with shellport.Runtime(transport=transport) as rt, rt.session(cwd=work) as s:
            _oneshot_bash(s)
        if marker is not None:
            try:
                with open(marker) as f:
                    used = f.read()
            except OSError as exc:
                fail(f"the spawn helper never ran: {exc}")
            # An exec'd supervisor names bash in its arguments or its spec
            # file (the wrapper records both); the executable's spawner
            # (--spawner) forks supervisors that get their program over a
            # socket instead.
            if "bash" not in used and "--spawner" not in used:
                fail(f"the spawn helper did not start bash nor a spawner: {used!r}")
    print(f"smoke ok: {transport if isinstance(transport, str) else ' '.join(transport)}")


def _persistent_bash(s: shellport.Session, work: str, turn: bool) -> None:
    r = s.call("bash", {"command": "type -t __sp_turn"})
    if (r.text == "builtin\n") != turn:
        fail(f"the shell {'did not load' if turn else 'loaded'} the turn builtin: {r.text!r}")
    r = s.call("bash", {"command": "mkdir -p sub && cd sub && export SMOKE=42 && tty"})
    if r.is_error or not any(t in r.text for t in ("/dev/pts/", "/dev/ttys")):  # Linux, macOS
        fail(f"first bash call: {r.text!r}")
    r = s.call("bash", {"command": 'echo "$PWD $SMOKE"; { : < /dev/tty; } 2>/dev/null && echo ctty'})
    if f"{work}/sub 42" not in r.text or "ctty" not in r.text:
        fail(f"the shell did not persist cwd and env, or has no terminal: {r.text!r}")
    r = s.call("bash", {"command": "exit 3"})
    if r.is_error:
        fail(f"a shell exiting is a result, not an error: {r.text!r}")


def _oneshot_bash(s: shellport.Session) -> None:
    mark = f"{3600 + os.getpid() % 1000}.{os.getpid()}"
    r = s.call("bash", {"command": f"setsid sleep {mark} </dev/null >/dev/null 2>&1 & echo $!",
                        "description": "Start a detached sleep"})
    if r.is_error or not r.text.strip().isdigit():
        fail(f"one-shot bash: {r.text!r}")
    if not sys.platform.startswith("linux"):
        return
    pid = int(r.text)
    deadline = time.monotonic() + 30
    while os.path.exists(f"/proc/{pid}") and _state(pid) not in ("Z", "X", ""):
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            fail("a process the command detached with setsid outlived it (no supervisor?)")
        time.sleep(0.02)


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def _editor(s: shellport.Session, work: str) -> None:
    path = os.path.join(work, "notes.txt")
    r = s.call("str_replace_editor", {"command": "create", "path": path, "file_text": "alpha\nbeta\n"})
    if r.is_error:
        fail(f"create: {r.text!r}")
    r = s.call("str_replace_editor",
               {"command": "str_replace", "path": path, "old_str": "beta", "new_str": "gamma"})
    if r.is_error:
        fail(f"str_replace: {r.text!r}")
    r = s.call("str_replace_editor", {"command": "view", "path": path})
    if r.is_error or "gamma" not in r.text:
        fail(f"view: {r.text!r}")
    with open(path, "rb") as f:
        if f.read() != b"alpha\ngamma\n":
            fail("the file's bytes are not what the edits made")


def main(argv: list[str]) -> None:
    marker = None
    if "--helper-marker" in argv:
        i = argv.index("--helper-marker")
        marker = argv[i + 1]
        del argv[i : i + 2]
    spec = argv[0]
    smoke(json.loads(spec) if spec.startswith("[") else spec, marker)


if __name__ == "__main__":
    main(sys.argv[1:])
