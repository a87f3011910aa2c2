"""The README's loops with each vendor's SDK run as written (issue 13).

Each loop is taken from README.md and run unchanged but for the repository
path; ``anthropic.Anthropic()`` and ``openai.OpenAI()`` give the real
clients with their HTTP answered by a scripted model in-process (no network,
no key), and the transport comes from SHELLPORT_TRANSPORT, as a user's
would. The scripts explore the repository, fix it and run its tests.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
from vendor_clients import (
    CALC,
    RUN_TESTS,
    Script,
    anthropic_client,
    apply_patch_call,
    assistant_text,
    make_repo,
    message,
    openai_client,
    response,
    shell_call,
    text,
    tool_use,
)

README = Path(__file__).parents[2] / "README.md"


def readme_loop(module: str) -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    found = [b for b in blocks if f"from shellport.vendors.{module} import" in b]
    assert len(found) == 1, f"README.md has {len(found)} loops with shellport.vendors.{module}"
    return found[0]


@pytest.fixture
def env_transport(transport: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("SHELLPORT_TRANSPORT", transport)
    return transport


def test_anthropic_loop(
    tmp_path: Path, env_transport: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path)
    calc = str(repo / "calc.py")
    script = Script(
        [
            message(1, tool_use("t1", "bash", {"command": f"ls && {RUN_TESTS}"})),
            message(
                2,
                tool_use(
                    "t2",
                    "str_replace_based_edit_tool",
                    {
                        "command": "str_replace",
                        "path": calc,
                        "old_str": "a - b",
                        "new_str": "a + b",
                    },
                ),
            ),
            message(3, tool_use("t3", "bash", {"command": RUN_TESTS})),
            message(4, text("Done."), stop="end_turn"),
        ]
    )
    monkeypatch.setattr(anthropic, "Anthropic", lambda: anthropic_client(script))
    code = readme_loop("anthropic").replace("/abs/repo", str(repo))
    namespace: dict[str, Any] = {}
    exec(compile(code, "README.md", "exec"), namespace)
    script.done()
    assert (repo / "calc.py").read_bytes() == CALC.replace("a - b", "a + b").encode()
    last = script.requests[-1]["messages"][-1]["content"][0]
    assert last["tool_use_id"] == "t3"
    assert "OK" in last["content"]
    assert script.requests[0]["tools"][0] == {"type": "bash_20250124", "name": "bash"}
    assert namespace["reply"].content[0].text == "Done."


def test_openai_loop(
    tmp_path: Path,
    env_transport: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    repo = make_repo(tmp_path)
    fix = "@@ def add(a, b):\n-\treturn a - b\n+\treturn a + b\n"
    script = Script(
        [
            response(1, shell_call("c1", ["ls", RUN_TESTS])),
            response(
                2, apply_patch_call("c2", {"type": "update_file", "path": "calc.py", "diff": fix})
            ),
            response(3, shell_call("c3", [RUN_TESTS])),
            response(4, assistant_text("Done.")),
        ]
    )
    monkeypatch.setattr(openai, "OpenAI", lambda: openai_client(script))
    code = readme_loop("openai").replace("/abs/repo", str(repo))
    exec(compile(code, "README.md", "exec"), {})
    script.done()
    assert capsys.readouterr().out == "Done.\n"
    assert (repo / "calc.py").read_bytes() == CALC.replace("a - b", "a + b").encode()
    green = script.requests[-1]["input"][0]["output"][0]
    assert green["outcome"] == {"type": "exit", "exit_code": 0}
    assert script.requests[0]["tools"] == [{"type": "shell"}, {"type": "apply_patch"}]
