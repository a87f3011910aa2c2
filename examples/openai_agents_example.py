"""OpenAI Agents SDK with shellport: `pip install 'shellport[openai-agents]'`.

Runs offline with the SDK's scripted model; for a real run leave `model` out
of the Agent (the SDK's default model) and set OPENAI_API_KEY.
"""

import tempfile

import shellport
from agents import Agent, Runner
from agents.testing import ScriptedModel, assistant_message, function_call
from shellport.integrations.openai_agents import tools

model = ScriptedModel([[function_call("bash", {"command": "cd /tmp && export N=1"}, call_id="c1")],
                       [function_call("bash", {"command": "pwd; echo $N"}, call_id="c2")],
                       [assistant_message("The shell keeps its state.")]])
runtime = shellport.Runtime({"profile": "persistent"})
with tempfile.TemporaryDirectory() as repo, runtime as rt, rt.session(repo) as s:
    agent = Agent(name="coder", instructions="Use bash.", model=model, tools=tools(s))
    result = Runner.run_sync(agent, "Show that the shell persists")
    print(result.final_output)  # The shell keeps its state.
