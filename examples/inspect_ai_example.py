"""inspect_ai with shellport: `pip install 'shellport[inspect-ai]'`.

sandbox="shellport" is found through inspect's entry points. Runs offline with
inspect's mockllm model; for a real run pass model="anthropic/claude-sonnet-4-5".
"""

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, use_tools
from shellport.integrations.inspect_ai import tools

usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download
outputs = [ModelOutput.for_tool_call("mockllm/model", "bash", {"command": "echo $((6 * 7))"}),
           ModelOutput.from_content("mockllm/model", "42")]
for o in outputs:
    o.usage = usage
task = Task(dataset=[Sample(input="What is 6*7? Use bash.", target="42")],
            solver=[use_tools(tools()), generate()], scorer=includes(), sandbox="shellport")
[log] = eval(task, model=get_model("mockllm/model", custom_outputs=outputs), display="none")
print(log.status, log.results.scores[0].metrics["accuracy"].value)  # success 1.0
