//go:build !linux

package spawnhelper

import (
	"context"
	"os"

	"github.com/shellport/shellport/internal/platform"
)

// Spec is one program to start under a supervisor; see the Linux version.
type Spec struct {
	Helper                string
	Path                  string
	Args                  []string
	Dir                   string
	Env                   []string
	Stdin, Stdout, Stderr *os.File
	TTY                   *os.File
	FD3                   *os.File
	Restrict              Restrictions
}

// Process is a supervised program; there are none on this platform.
type Process struct{}

// Start fails: supervising needs a child subreaper, which only Linux has.
func Start(context.Context, Spec) (*Process, error) {
	return nil, platform.Unsupported("spawn helper: supervising a program")
}

// Pid is 0.
func (p *Process) Pid() int { return 0 }

// SupervisorPid is 0.
func (p *Process) SupervisorPid() int { return 0 }

// KillAll fails.
func (p *Process) KillAll() error { return platform.Unsupported("spawn helper: supervising a program") }

// Wait fails.
func (p *Process) Wait() (*os.ProcessState, error) {
	return nil, platform.Unsupported("spawn helper: supervising a program")
}

// Lost is false.
func (p *Process) Lost() bool { return false }

// Spares are pre-started supervisors; there are none on this platform and
// Start is [Start].
type Spares struct{}

// NewSpares returns a pool that starts every program with [Start].
func NewSpares(string) *Spares { return &Spares{} }

// Start is [Start].
func (p *Spares) Start(ctx context.Context, s Spec) (*Process, error) { return Start(ctx, s) }

// Close does nothing.
func (p *Spares) Close() {}

// SparePid is 0.
func (p *Spares) SparePid() int { return 0 }

// SpawnerPid is 0: there are no spares.
func (p *Spares) SpawnerPid() int { return 0 }

// OnExit runs f in a goroutine of its own.
func (p *Process) OnExit(f func()) { go f() }

// UseSpares does nothing: there are no spares here.
func UseSpares() {}

// SparesInUse is false.
func SparesInUse() bool { return false }
