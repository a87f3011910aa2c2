"""What the checks need to know about a platform, apart from the fixtures that start it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable

import shellport

from .sandboxes import SSHServer, alive


def ssh_command(server: SSHServer, **kwargs: Any) -> shellport.remote.Command:
    """shellport.remote.ssh to the test server."""
    return shellport.remote.ssh(
        "127.0.0.1",
        user=server.user,
        port=server.port,
        identity=server.key,
        options=server.options,
        **kwargs,
    )


@dataclass
class Platform:
    """One way to reach a runtime, and how to see what runs there."""

    name: str
    command: Callable[..., shellport.remote.Command]  # keyword arguments of the helper
    cwd: str  # a directory there, for sessions
    #: Given the open Runtime, returns a function listing the processes left
    #: there that are not the sandbox's own (its init, sshd).
    watch: Callable[[shellport.Runtime], Callable[[], list[int]]]


def transport_pid(rt: shellport.Runtime) -> int:
    transport = rt._connection().transport
    assert isinstance(transport, shellport.StdioTransport)
    return transport.pid


def in_net_namespace_of(rt: shellport.Runtime) -> Callable[[], list[int]]:
    """Processes in the network namespace the runtime (unshare --net) made."""
    pid = transport_pid(rt)
    ns = os.readlink(f"/proc/{pid}/ns/net")

    def left() -> list[int]:
        out = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                if os.readlink(f"/proc/{entry}/ns/net") == ns and alive(int(entry)):
                    out.append(int(entry))
            except OSError:
                continue
        return out

    return left
