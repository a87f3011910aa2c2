"""The integration examples in examples/ run as shown (offline, scripted models)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).parents[2] / "examples"
EXPECTED = {
    "mini_swe_agent_example.py": "Submitted 'done\\n'",
    "inspect_ai_example.py": "success 1.0",
    "openai_agents_example.py": "The shell keeps its state.",
    "mcp_client_example.py": "hello from /",
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example(name: str, tmp_path: Path) -> None:
    env = dict(os.environ)
    # The console script `shellport` of this venv, as after `pip install shellport`.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["MSWEA_SILENT_STARTUP"] = "1"
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert EXPECTED[name] in proc.stdout, proc.stdout
