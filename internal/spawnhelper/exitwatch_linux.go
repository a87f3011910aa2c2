//go:build linux

package spawnhelper

import (
	"errors"
	"sync"

	"golang.org/x/sys/unix"
)

// The exit watcher learns of every live supervisor's end for OnExit from
// one goroutine, by its report pipe's end of file in an epoll set of its
// own, so that a live persistent session waits with no goroutine of its
// own (issue 16: a parked goroutine per session, its stack and its g,
// about 5 KB of a live session's memory in the runtime). It costs the
// runtime one descriptor, the epoll set, and one thread while it waits.
var exitWatch struct {
	once    sync.Once
	epfd    int
	err     error
	mu      sync.Mutex
	watched map[int32]*watchedExit // by the report pipe's descriptor
}

// watchedExit is a supervisor OnExit waits for.
type watchedExit struct {
	p      *Process
	fd     int
	onExit func()
}

// OnExit runs f in a goroutine of its own once the supervisor has exited
// (its report pipe's end of file): Wait then returns at once. Until then
// nothing of the process's waits: no goroutine, no thread. Call it once,
// and call Wait only from f or after it has run.
func (p *Process) OnExit(f func()) {
	exitWatch.once.Do(startExitWatch)
	p.reportMu.Lock()
	fd := int(p.report.Fd())
	p.watched = make(chan struct{})
	w := &watchedExit{p: p, fd: fd, onExit: f}
	exitWatch.mu.Lock()
	err := exitWatch.err
	if err == nil {
		err = unix.SetNonblock(fd, true)
	}
	if err == nil {
		exitWatch.watched[int32(fd)] = w
		// Level-triggered: what the pipe holds, or its end, is seen
		// whenever it was written.
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(fd)}
		if err = unix.EpollCtl(exitWatch.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			delete(exitWatch.watched, int32(fd))
		}
	}
	exitWatch.mu.Unlock()
	p.reportMu.Unlock()
	if err != nil {
		w.waitAlone()
	}
}

// waitAlone is the way without the watcher: a goroutine of the process's
// own waits for the end of file, parked in a blocking read.
func (w *watchedExit) waitAlone() {
	go func() {
		w.p.reportMu.Lock()
		_ = unix.SetNonblock(w.fd, false) // Best effort: drain reads it blocking.
		w.p.drain()
		w.p.reportMu.Unlock()
		close(w.p.watched)
		w.onExit()
	}()
}

func startExitWatch() {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		exitWatch.err = err
		return
	}
	exitWatch.epfd = epfd
	exitWatch.watched = make(map[int32]*watchedExit)
	go watchExits(epfd)
}

// watchExits is the watcher's loop: it reads what a watched report pipe
// holds and, at its end of file, forgets it and runs its OnExit function.
func watchExits(epfd int) {
	var events [64]unix.EpollEvent
	var buf [256]byte
	for {
		n, err := unix.EpollWait(epfd, events[:], -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			// Cannot happen while the set is valid (a host that closed
			// descriptors it does not own): every process waits alone.
			exitWatch.mu.Lock()
			exitWatch.err = err
			for fd, w := range exitWatch.watched {
				delete(exitWatch.watched, fd)
				w.waitAlone()
			}
			exitWatch.mu.Unlock()
			return
		}
		for _, ev := range events[:n] {
			exitWatch.mu.Lock()
			w := exitWatch.watched[ev.Fd]
			exitWatch.mu.Unlock()
			if w != nil && w.readReport(buf[:]) {
				exitWatch.mu.Lock()
				delete(exitWatch.watched, ev.Fd)
				exitWatch.mu.Unlock()
				// Removed before it is closed, so that a descriptor of
				// the same number registered later is a new entry.
				_ = unix.EpollCtl(epfd, unix.EPOLL_CTL_DEL, w.fd, nil)
				w.p.reportMu.Lock()
				w.p.drained = true
				_ = w.p.report.Close() // Best effort.
				w.p.reportMu.Unlock()
				close(w.p.watched)
				go w.onExit()
			}
		}
	}
}

// readReport reads what the pipe holds into the process's report; it
// returns true at its end of file (or an error that ends it).
func (w *watchedExit) readReport(buf []byte) (ended bool) {
	w.p.reportMu.Lock()
	defer w.p.reportMu.Unlock()
	for {
		n, err := unix.Read(w.fd, buf)
		if n > 0 {
			w.p.early = append(w.p.early, buf[:n]...)
			continue
		}
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EAGAIN):
			return false
		}
		return true // end of file, or a pipe that cannot be read
	}
}
