"""inspect_ai: a Task with sandbox="shellport" and shellport's tools, driven by
inspect's own mockllm model, runs explore-edit-test and is scored (issue 14).

The mock model's token usage is preset on every output, so inspect never
counts tokens (which would download a tokenizer); nothing uses the network.
"""

from __future__ import annotations

import asyncio
import getpass
import os
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import Score, Target, accuracy, scorer
from inspect_ai.solver import TaskState, generate, use_tools
from inspect_ai.tool import bash as inspect_bash
from inspect_ai.util import (
    OutputLimitExceededError,
    SandboxEnvironmentLimits,
    SandboxUserUnsupportedError,
    sandbox,
)

from conftest import alive, descendants
from shellport.integrations.inspect_ai import (
    ShellportSandboxConfig,
    ShellportSandboxEnvironment,
    tools,
)

MODEL = "mockllm/model"
RENAMED = {"tools": {"bash": {"name": "shell"}}}
SETUP = "mkdir -p pkg && printf 'RETRIES = 3\\n' > pkg/app.py && touch pkg/__init__.py"
TEST = "python3 -c 'import pkg.app as a, sys; sys.exit(0 if a.RETRIES == 5 else 1)'"


def out(output: ModelOutput) -> ModelOutput:
    output.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
    return output


def call(tool: str, **arguments: Any) -> ModelOutput:
    return out(ModelOutput.for_tool_call(model=MODEL, tool_name=tool, tool_arguments=arguments))


@scorer(metrics=[accuracy()])
def scored_by_the_tests() -> Any:
    async def score(state: TaskState, target: Target) -> Score:
        result = await sandbox().exec(["bash", "-c", TEST])
        source = await sandbox().read_file("pkg/app.py")
        return Score(
            value=1 if result.success and source == "RETRIES = 5\n" else 0, explanation=source
        )

    return score


def run(task: Task, outputs: list[ModelOutput], log_dir: Path) -> EvalLog:
    model = get_model(MODEL, custom_outputs=outputs)
    [log] = inspect_eval(task, model=model, log_dir=str(log_dir), display="none")
    return log


def tool_messages(log: EvalLog) -> list[Any]:
    assert log.samples is not None
    return [m for m in log.samples[0].messages if m.role == "tool"]


def test_explore_edit_test_scores(tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    outputs = [
        call("shell", command=SETUP),
        call("shell", command="cd pkg && export VERSION=2 && ls -1"),
        call(
            "shell",
            command='echo "$VERSION in $(basename $PWD)"; ' + TEST.replace("pkg.app", "app"),
        ),
        call(
            "str_replace_editor",
            command="str_replace",
            path=f"{workdir}/pkg/app.py",
            old_str="RETRIES = 3",
            new_str="RETRIES = 5",
        ),
        call("str_replace_editor", command="view", path="pkg/app.py"),  # not absolute: a tool error
        call("bash", command="cd pkg && " + TEST.replace("pkg.app", "app") + " && echo green"),
        out(ModelOutput.from_content(model=MODEL, content="Done: the retries are 5.")),
    ]
    task = Task(
        dataset=[Sample(input="Raise the retries in pkg/app.py to 5.", target="5")],
        # shellport's persistent bash renamed by config, next to inspect's own bash
        solver=[use_tools([*tools(config=RENAMED), inspect_bash()]), generate()],
        scorer=scored_by_the_tests(),
        sandbox=("shellport", ShellportSandboxConfig(cwd=str(workdir))),
    )
    log = run(task, outputs, tmp_path / "logs")
    assert log.status == "success", log.error
    assert log.results is not None
    assert log.results.scores[0].metrics["accuracy"].value == 1.0
    msgs = tool_messages(log)
    texts = [m.text for m in msgs]
    assert texts[1] == "__init__.py\napp.py\n"
    assert texts[2] == "2 in pkg\n[exit code: 1]"  # persistent state; a failing test is a result
    assert "RETRIES = 5" in texts[3]
    assert msgs[4].error is not None
    assert "is not absolute" in msgs[4].error.message
    # inspect's own bash, through the sandbox's exec
    assert texts[5].strip() == "green", msgs[5].error
    assert (workdir / "pkg" / "app.py").read_text() == "RETRIES = 5\n"  # cwd from config: kept


def test_fresh_workdir_per_sample_and_cleanup(tmp_path: Path) -> None:
    """Without cwd each sample works in its own directory, removed afterwards,
    and nothing the sample started outlives it."""
    outputs = [
        call(
            "bash",
            command="pwd > /dev/null; (echo $BASHPID > "
            + str(tmp_path / "pid")
            + "; exec sleep 600) &",
        ),
        call("bash", command="pwd"),
        out(ModelOutput.from_content(model=MODEL, content="ok")),
    ]
    task = Task(
        dataset=[Sample(input="x")], solver=[use_tools(tools()), generate()], sandbox="shellport"
    )
    log = run(task, outputs, tmp_path / "logs")
    assert log.status == "success", log.error
    workdir = tool_messages(log)[1].text.strip()
    assert workdir.startswith("/")
    assert not Path(workdir).exists()
    pid = int((tmp_path / "pid").read_text())
    assert not alive(pid)


class TestSandboxInterface:
    """exec, read_file and write_file against a sandbox opened as inspect opens it."""

    @pytest.fixture
    def env(self, tmp_path: Path) -> Any:
        envs = asyncio.run(
            ShellportSandboxEnvironment.sample_init(
                "t", ShellportSandboxConfig(cwd=str(tmp_path)), {}
            )
        )
        env = envs["default"]
        assert isinstance(env, ShellportSandboxEnvironment)
        yield env
        asyncio.run(ShellportSandboxEnvironment.sample_cleanup("t", None, envs, False))

    def test_exec(self, env: ShellportSandboxEnvironment, tmp_path: Path) -> None:
        async def go() -> None:
            r = await env.exec(["sh", "-c", "printf 'out\\r\\n'; printf 'err' >&2; exit 3"])
            assert (r.success, r.returncode, r.stdout, r.stderr) == (False, 3, "out\r\n", "err")
            r = await env.exec(["cat"], input="fed through stdin\n")
            assert r.stdout == "fed through stdin\n"
            (tmp_path / "sub").mkdir()
            r = await env.exec(["sh", "-c", 'echo "$A $PWD"'], cwd="sub", env={"A": "it's"})
            assert r.stdout == f"it's {tmp_path}/sub\n"
            r = await env.exec(["no-such-program-here"])
            assert r.returncode == 127
            assert not r.success
            with pytest.raises(TimeoutError):
                await env.exec(["sleep", "30"], timeout=1)
            r = await env.exec(["printf", "%s", "\xff"])
            assert r.stdout == "\xff"
            me = getpass.getuser()
            assert (await env.exec(["id", "-un"], user=me)).stdout == f"{me}\n"
            with pytest.raises(SandboxUserUnsupportedError):
                await env.exec(["id"], user="no-such-user-here")

        asyncio.run(go())

    def test_files(self, env: ShellportSandboxEnvironment, tmp_path: Path) -> None:
        blob = bytes(range(256)) * 1000  # binary, several write chunks

        async def go() -> None:
            await env.write_file("deep/dir/blob.bin", blob)
            assert (tmp_path / "deep/dir/blob.bin").read_bytes() == blob
            assert await env.read_file("deep/dir/blob.bin", text=False) == blob
            await env.write_file(str(tmp_path / "crlf.txt"), "a\r\nb\r\n")
            assert await env.read_file("crlf.txt") == "a\r\nb\r\n"
            with pytest.raises(FileNotFoundError):
                await env.read_file("missing.txt")
            with pytest.raises(IsADirectoryError):
                await env.read_file("deep")
            with pytest.raises(IsADirectoryError):
                await env.write_file("deep", "x")
            with pytest.raises(UnicodeDecodeError):
                await env.read_file("deep/dir/blob.bin")
            conn = await env.connection()
            assert conn.type == "shellport"
            assert str(tmp_path) in conn.command

        asyncio.run(go())

    def test_output_limit(self, env: ShellportSandboxEnvironment) -> None:
        limit = SandboxEnvironmentLimits.MAX_EXEC_OUTPUT_SIZE

        async def go() -> None:
            with pytest.raises(OutputLimitExceededError) as info:
                await env.exec(["head", "-c", str(limit + 10), "/dev/zero"])
            assert info.value.truncated_output is not None
            assert len(info.value.truncated_output) == limit

        asyncio.run(go())


def test_sessions_die_with_the_sample(tmp_path: Path) -> None:
    """sample_cleanup kills what exec and the tools started."""

    async def go() -> list[int]:
        envs = await ShellportSandboxEnvironment.sample_init(
            "t", ShellportSandboxConfig(transport="process"), {}
        )
        env = envs["default"]
        assert isinstance(env, ShellportSandboxEnvironment)
        s = await env.tool_session({"profile": "persistent"})
        await s.acall("bash", {"command": "sleep 600 &"})
        before = descendants(os.getpid())
        await ShellportSandboxEnvironment.sample_cleanup("t", None, envs, False)
        return before

    before = asyncio.run(go())
    assert len(before) >= 3  # two shellport processes and a sleeping shell
    assert [pid for pid in before if alive(pid)] == []
