"""mini-swe-agent with shellport: `pip install 'shellport[mini-swe-agent]'`.

Runs offline with mini-swe-agent's scripted model; for a real run use
`minisweagent.models.get_model("anthropic/claude-sonnet-4-5")` instead.
"""

import tempfile

import yaml
from minisweagent import package_dir
from minisweagent.agents.default import DefaultAgent
from minisweagent.models.test_models import DeterministicModel, make_output
from shellport.integrations.mini_swe_agent import ShellportEnvironment


def act(cmd: str) -> dict:
    return make_output(f"```mswea_bash_command\n{cmd}\n```", [{"command": cmd}])


config = yaml.safe_load((package_dir / "config" / "default.yaml").read_text())
with tempfile.TemporaryDirectory() as repo, ShellportEnvironment(cwd=repo) as env:
    model = DeterministicModel(outputs=[act("cd /tmp && export N=1"), act("pwd; echo $N"),
                                        act("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; echo done")])
    result = DefaultAgent(model, env, **config["agent"]).run("Show that the shell persists")
    print(result["exit_status"], repr(result["submission"]))  # Submitted 'done\n'
