"""mini-swe-agent: its own DefaultAgent, driven by its own DeterministicModel,
runs a scripted trajectory in a ShellportEnvironment (issue 14)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from minisweagent import package_dir
from minisweagent.agents.default import DefaultAgent
from minisweagent.environments import get_environment
from minisweagent.models.test_models import DeterministicModel, make_output

from conftest import alive, binary_path, read_pid, wait_until
from shellport.integrations.mini_swe_agent import ShellportEnvironment

ENV_CLASS = "shellport.integrations.mini_swe_agent.ShellportEnvironment"
SUBMIT = (
    "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff --no-index /dev/null app.py | tail -1"
)


def agent_config() -> dict[str, Any]:
    """The agent section of the harness's packaged default config."""
    config = yaml.safe_load((package_dir / "config" / "default.yaml").read_text())
    return dict(config["agent"])


def step(command: str) -> dict[str, Any]:
    return make_output(
        f"THOUGHT: next.\n\n```mswea_bash_command\n{command}\n```", [{"command": command}]
    )


def observations(agent: DefaultAgent) -> list[dict[str, Any]]:
    return [
        m["extra"]
        for m in agent.messages
        if m["role"] == "user" and "returncode" in m.get("extra", {})
    ]


@pytest.mark.parametrize("argv", [False, True], ids=["named", "argv"])
def test_scripted_trajectory(tmp_path: Path, transport: str, argv: bool) -> None:
    """cd + export, the state in the next step, an edit, a failing command, submission."""
    (tmp_path / "src").mkdir()
    app = tmp_path / "src" / "app.py"
    app.write_text("RETRIES = 3\n")
    spec: Any = [binary_path(), "serve"] if argv else transport
    env = get_environment(
        {
            "environment_class": ENV_CLASS,
            "cwd": str(tmp_path),
            "transport": spec,
            "env": {"PAGER": "cat"},
        }
    )
    assert isinstance(env, ShellportEnvironment)
    model = DeterministicModel(
        outputs=[
            step("cd src && export TARGET=5"),
            step('pwd; echo "target=$TARGET"'),
            step('sed -i "s/RETRIES = 3/RETRIES = $TARGET/" app.py && cat app.py'),
            step("python3 -c 'import sys; sys.exit(4)'"),
            step(SUBMIT),
        ]
    )
    try:
        agent = DefaultAgent(model, env, **agent_config())
        result = agent.run("Raise the retries to 5")
    finally:
        env.cleanup()
    assert result["exit_status"] == "Submitted"
    assert result["submission"] == "+RETRIES = 5\n"
    obs = observations(agent)
    assert [o["returncode"] for o in obs] == [0, 0, 0, 4]
    assert obs[1]["raw_output"] == f"{tmp_path}/src\ntarget=5\n"
    assert obs[2]["raw_output"] == "RETRIES = 5\n"
    assert obs[3]["raw_output"] == ""  # the exit status is the returncode, not a text marker
    assert app.read_text() == "RETRIES = 5\n"
    # The templates saw the machine the commands ran on.
    assert agent.get_template_vars()["system"] == "Linux"


def test_timeout_is_the_harness_timeout(tmp_path: Path, transport: str) -> None:
    """A command past the timeout comes back as subprocess.TimeoutExpired, with the
    output so far, and the next command runs in a fresh shell."""
    env = ShellportEnvironment(cwd=str(tmp_path), timeout=1, transport=transport)
    try:
        env.execute({"command": "export KEPT=yes"})
        out = env.execute({"command": "echo started; sleep 30"})
        assert out["returncode"] == -1
        assert out["extra"]["exception_type"] == "TimeoutExpired"
        assert "timed out after 1 seconds" in out["exception_info"]
        assert out["output"].startswith("started\n")
        assert "shell was reset" in out["output"]
        assert env.execute({"command": "echo ${KEPT:-gone}"})["output"] == "gone\n"
    finally:
        env.cleanup()


def test_per_call_timeout(tmp_path: Path, transport: str) -> None:
    """execute(timeout=N) below the configured timeout stops the command at N seconds."""
    env = ShellportEnvironment(cwd=str(tmp_path), timeout=60, transport=transport)
    try:
        pid_file = tmp_path / "pid"
        out = env.execute({"command": f"echo $$ > {pid_file}; sleep 60"}, timeout=1)
        assert out["returncode"] == -1
        assert out["extra"]["exception_type"] == "TimeoutExpired"
        pid = read_pid(pid_file)
        wait_until(lambda: not alive(pid), "the stopped command to die")
        # The next output says the shell was reset (issue 11), then runs.
        out = env.execute({"command": "echo fresh"})["output"]
        assert out.endswith("\nfresh\n"), out
        assert "reset the shell" in out, out
    finally:
        env.cleanup()


def test_oneshot_profile_and_cwd(tmp_path: Path, transport: str) -> None:
    """The one-shot profile: nothing persists; execute(cwd=...) runs there."""
    (tmp_path / "sub").mkdir()
    env = ShellportEnvironment(cwd=str(tmp_path), profile="oneshot", timeout=1, transport=transport)
    try:
        assert env.execute({"command": "cd sub && export X=1"}) == {
            "output": "",
            "returncode": 0,
            "exception_info": "",
        }
        assert env.execute({"command": "pwd; echo ${X:-unset}"})["output"] == f"{tmp_path}\nunset\n"
        assert (
            env.execute({"command": "pwd"}, cwd=str(tmp_path / "sub"))["output"]
            == f"{tmp_path}/sub\n"
        )
        out = env.execute({"command": "sleep 30"})
        assert out["extra"]["exception_type"] == "TimeoutExpired"
        assert env.execute({"command": "exit 3"})["returncode"] == 3
    finally:
        env.cleanup()


def test_cleanup_kills_the_session(tmp_path: Path, transport: str) -> None:
    pid_file = tmp_path / "pid"
    env = ShellportEnvironment(cwd=str(tmp_path), transport=transport)
    env.execute({"command": f"(echo $BASHPID > {pid_file}; exec sleep 600) &"})
    pid = read_pid(pid_file)
    assert alive(pid)
    env.cleanup()
    assert not alive(pid)
    assert env.serialize()["info"]["config"]["environment_type"] == ENV_CLASS


@pytest.mark.parametrize(
    ("module", "extra"),
    [
        ("mini_swe_agent", "mini-swe-agent"),
        ("inspect_ai", "inspect-ai"),
        ("openai_agents", "openai-agents"),
    ],
)
def test_missing_harness_says_what_to_install(module: str, extra: str) -> None:
    harness = {
        "mini_swe_agent": "minisweagent",
        "inspect_ai": "inspect_ai",
        "openai_agents": "agents",
    }[module]
    code = f"import sys; sys.modules[{harness!r}] = None\nimport shellport.integrations.{module}\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert f"pip install 'shellport[{extra}]'" in proc.stderr, proc.stderr
