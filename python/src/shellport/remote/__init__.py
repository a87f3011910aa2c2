"""Drive a shellport runtime inside a sandbox: a container, a pod, a host, namespaces.

Each helper returns a :class:`Command` for ``Runtime(transport=...)``; the
runtime then runs where the sandbox's own exec channel puts it (no port, no
daemon) and speaks the protocol over that channel's stdin and stdout::

    import shellport

    cmd = shellport.remote.podman("rollout-17", install=True)   # copies the executable once
    with shellport.Runtime({"profile": "persistent"}, transport=cmd) as rt:
        with rt.session(cwd="/testbed") as s:
            print(s.call("bash", {"command": "git status"}).text)

``install=True`` copies this package's static executable (and spawn helper)
into the sandbox when the architectures match, and otherwise says which
wheel or archive holds the right one. The Runtime checks the remote
runtime's version against this package's and names both on a mismatch.
With a heartbeat (on by default for docker, podman, kubectl and ssh) the
Runtime pings the remote runtime, which kills everything and exits when the
pings stop — the only way a runtime behind ``kubectl exec`` learns that its
harness is gone. Many sandboxes from one harness: one Runtime per sandbox,
driven from asyncio (see docs/REMOTE.md).
"""

from ._command import Command
from ._platforms import docker, kubectl, nsenter, podman, ssh, unshare

__all__ = ["Command", "docker", "kubectl", "nsenter", "podman", "ssh", "unshare"]

Command.__module__ = "shellport.remote"
