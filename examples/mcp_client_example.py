"""Drive `shellport mcp` from Python's MCP client: `pip install 'shellport[mcp]'`.

`shellport` is the console script the package installs. The same command and
arguments go into Claude Code, Codex or Cursor (docs/INTEGRATIONS.md).
"""

import tempfile

import anyio
from mcp import StdioServerParameters
from mcp.client.client import Client


async def main(repo: str) -> None:
    server = StdioServerParameters(command="shellport", args=["mcp", "--profile", "persistent", "--cwd", repo])
    async with Client(server) as client:
        print([t.name for t in (await client.list_tools()).tools])  # ['bash', 'str_replace_editor']
        await client.call_tool("bash", {"command": "export GREETING=hello"})
        result = await client.call_tool("bash", {"command": "echo $GREETING from $(pwd)"})
        print(result.content[0].text.strip(), result.structured_content["exitCode"])


with tempfile.TemporaryDirectory() as repo:
    anyio.run(main, repo)
