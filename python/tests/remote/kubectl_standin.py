#!/usr/bin/env python3
"""Stands in for ``kubectl exec -i`` where no cluster can run (issue 15).

It takes kubectl's argv — ``[--kubeconfig F] [--context C] [--namespace N] exec -i
POD [-c CONTAINER] -- COMMAND...`` — refusing anything else, and runs COMMAND on
this machine the way a cluster would, with the two behaviours of the real
channel that a runtime has to survive:

- the end of this process's stdin is not passed on: COMMAND's stdin stays open
  (exec stdin over the websocket protocols had no close signal;
  kubernetes/kubernetes#89899, kubernetes-client/python#2371);
- COMMAND is not killed when this process dies: a detached "kubelet" process
  owns it and keeps its stdin open until it exits by itself
  (kubernetes-client/javascript#441).

STANDIN_PIDFILE, when set, receives COMMAND's pid, so a test can watch it.
"""

from __future__ import annotations

import os
import selectors
import socket
import subprocess
import sys
import threading

GLOBAL_FLAGS = ("--kubeconfig", "--context", "--namespace")


def parse(argv: list[str]) -> list[str]:
    """COMMAND from a kubectl exec argv; exit 2 (as kubectl does) on anything else."""
    i = 0
    while i < len(argv) and argv[i] in GLOBAL_FLAGS:
        i += 2
    if argv[i : i + 2] != ["exec", "-i"]:
        fail(f"only `exec -i` is supported, got {argv!r}")
    i += 3  # exec -i POD
    if argv[i : i + 1] == ["-c"]:
        i += 2
    if argv[i : i + 1] != ["--"] or len(argv) <= i + 1:
        fail(f"expected -- COMMAND after the pod, got {argv!r}")
    return argv[i + 1 :]


def fail(why: str) -> None:
    sys.stderr.write(f"error: {why}\n")
    sys.exit(2)


def kubelet(command: list[str], inp: socket.socket, out: socket.socket, err: socket.socket) -> None:
    """Run command; relay the client's bytes to it and its output back while the
    client lives; never close its stdin; exit when it does."""
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    pidfile = os.environ.get("STANDIN_PIDFILE")
    if pidfile:
        with open(pidfile + ".tmp", "w") as f:
            f.write(str(proc.pid))
        os.replace(pidfile + ".tmp", pidfile)
    assert proc.stdin is not None
    assert proc.stdout is not None
    assert proc.stderr is not None
    sel = selectors.DefaultSelector()
    sel.register(inp, selectors.EVENT_READ, proc.stdin)
    sel.register(proc.stdout, selectors.EVENT_READ, out)
    sel.register(proc.stderr, selectors.EVENT_READ, err)
    outputs = 2
    while outputs:
        for key, _ in sel.select():
            src, dst = key.fileobj, key.data
            data = (
                src.recv(1 << 16)
                if isinstance(src, socket.socket)
                else os.read(src.fileno(), 1 << 16)
            )
            if not data:
                sel.unregister(src)
                if src is not inp:
                    outputs -= 1
                continue  # the client's end: COMMAND's stdin stays open
            try:
                if isinstance(dst, socket.socket):
                    dst.sendall(data)
                else:
                    dst.write(data)
                    dst.flush()
            except OSError:
                pass  # nobody listens any more; keep draining
    proc.wait()
    os._exit(0)


def main() -> None:
    command = parse(sys.argv[1:])
    pairs = [socket.socketpair() for _ in range(3)]
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            # The kubelet holds none of the client's descriptors: when the
            # client dies, its pipes close at once.
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            kubelet(command, pairs[0][1], pairs[1][1], pairs[2][1])
        os._exit(0)
    os.wait()
    for _, kubelet_end in pairs:
        kubelet_end.close()
    to_command, from_out, from_err = (p[0] for p in pairs)

    def forward_stdin() -> None:
        while True:
            data = os.read(0, 1 << 16)
            if not data:
                return  # end of input, not passed on: to_command stays open
            to_command.sendall(data)

    def relay(src: socket.socket, fd: int) -> None:
        while True:
            data = src.recv(1 << 16)
            if not data:
                return
            os.write(fd, data)

    threading.Thread(target=forward_stdin, daemon=True).start()
    err = threading.Thread(target=relay, args=(from_err, 2))
    err.start()
    relay(from_out, 1)
    err.join()


if __name__ == "__main__":
    main()
