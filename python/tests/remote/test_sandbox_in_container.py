"""The sandbox inside a container with the engine's default seccomp profile.

docs/TOOLS.md ("Known limits", Containers) says the Linux backend works in
a default container: the engine's own seccomp profile lets the Landlock and
seccomp calls through. This runs the runtime in a podman container started
without --security-opt (so podman's default profile applies) and checks
that the sandbox is enforced there, not merely reported.
"""

from __future__ import annotations

import pytest

import shellport

from .sandboxes import PodmanContainer


@pytest.mark.parametrize("profile", ["oneshot", "persistent"])
def test_sandbox_is_enforced_in_a_default_container(
    container: PodmanContainer, profile: str
) -> None:
    with shellport.Runtime({"profile": profile}, shellport.remote.podman(container.name)) as rt:
        assert rt.sandbox.get("backend") == "landlock", rt.sandbox
        assert rt.sandbox.get("seccomp") is True, rt.sandbox
        with rt.session("/ws", sandbox={"mode": "workspace-write", "writableTmp": False}) as s:
            args: dict[str, object] = {
                "command": "echo in > /ws/in; echo ws=$?; echo out > /etc/out; echo etc=$?; "
                "(exec 3<>/dev/tcp/127.0.0.1/9); echo tcp=$?",
            }
            if profile == "oneshot":
                args["description"] = "Probe the sandbox in a container"
            r = s.call("bash", args)
    got = dict(line.split("=", 1) for line in r.text.splitlines() if "=" in line)
    assert got["ws"] == "0", r.text
    assert got["etc"] != "0", r.text
    # seccomp refuses the socket itself: not "Connection refused", which
    # the container's empty network would say anyway.
    assert got["tcp"] != "0", r.text
    assert "socket: Operation not permitted" in r.text, r.text
    assert "Permission denied" in r.text, r.text
    assert container.exec("cat", "/ws/in").strip() == "in"
    assert container.exec("sh", "-c", "test -e /etc/out && echo yes || echo no").strip() == "no"
