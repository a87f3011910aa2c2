//go:build !linux && !darwin

package pty

import (
	"context"
	"strconv"
	"syscall"

	"github.com/shellport/shellport/internal/platform"
)

func unsupported(op string) error { return platform.Unsupported("pty: " + op) }

func start(context.Context, Options) (*Process, error) {
	return nil, unsupported("starting a program on a terminal")
}

func (p *Process) resize(Winsize) error { return unsupported("resizing a terminal") }

func (p *Process) signalForeground(syscall.Signal) error {
	return unsupported("signalling a terminal's foreground group")
}

func (p *Process) waitingForInput() bool { return false }

func killSession(int) error { return unsupported("killing a terminal session") }

func signalName(sig syscall.Signal) string { return "signal " + strconv.Itoa(int(sig)) }

func (p *Process) readEach(func([]byte)) error { return unsupported("reading a terminal") }

func (p *Process) nudgeReader() {}
