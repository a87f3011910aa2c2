"""Drop-in integrations of shellport with agent harnesses.

Each module imports its harness only when it is itself imported, and says
which extra to install when the harness is missing:

- ``shellport.integrations.mini_swe_agent``: ``ShellportEnvironment``, an
  environment for mini-swe-agent (``pip install 'shellport[mini-swe-agent]'``).
- ``shellport.integrations.inspect_ai``: the ``"shellport"`` sandbox and the
  model tools for inspect_ai (``pip install 'shellport[inspect-ai]'``).
- ``shellport.integrations.openai_agents``: ``tools(session)``, function tools
  for the OpenAI Agents SDK (``pip install 'shellport[openai-agents]'``).

Any MCP client can also use ``shellport mcp`` (docs/INTEGRATIONS.md).
"""
