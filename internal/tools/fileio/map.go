package fileio

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"
	"unsafe"
)

// ErrReadAgain is Save's answer when the change was planned on a mapping
// (MapForChange) that it cannot vouch for: the file's change time is too
// recent to prove that nobody wrote it since it was mapped, and a mapping
// follows the file, so comparing the two proves nothing; or the change
// must be written in place, which would change the mapping under the
// caller. Nothing was written. The caller reads the file with
// ReadForChange (which drops the mapping), plans again and saves.
var ErrReadAgain = errors.New("the mapped content cannot be vouched for; read the file and plan the change again")

// mapMin is the size from which MapForChange maps the file. Reading a
// large file into the heap costs a fresh process its page faults and the
// zeroing of as much new memory as the file (13 ms of a 35 MB edit, on
// top of the read's copy, issue 16); a mapping of the cached pages costs
// neither. Below this size the copy is cheap and the plain read is kept.
const mapMin = 4 << 20

// MapForChange is ReadForChange for a caller that reads the content only
// until the edit is saved, never writes it and never keeps it after the
// release: a large ordinary file (one link, not a mount point) whose
// change time is already older than the margin Save trusts is mapped
// (read-only, private) instead of copied; any other file is read as by
// ReadForChange. The mapping is not a snapshot: it shows the file as it is
// now, which the locks and Save's checks make the content that was
// mapped. A program that cuts the file short while it is mapped makes
// reading the lost pages fault (SIGBUS): the caller reads the mapping on
// goroutines that called debug.SetPanicOnFault(true) and deferred
// CatchFault. Save may answer ErrReadAgain (see there). The release
// function of OpenLocked or LockFiles unmaps it.
func (l *Locked) MapForChange(name, shell string) ([]byte, error) {
	if !l.mappable() {
		return l.ReadForChange(name, shell)
	}
	if l.fi.Size() > MaxTextBytes {
		return nil, tooLarge(name, l.fi.Size(), shell)
	}
	if err := checkWritable(l.Real); err != nil {
		return nil, PathErr("write", name, err)
	}
	data, err := mapFile(l.f, l.fi.Size())
	if err != nil {
		return l.ReadForChange(name, shell) // a file system that cannot map
	}
	l.mapped = data
	return data, nil
}

// mappable tells whether MapForChange may map the file: large, replaced
// (not written in place) by Save, and settled by its change time by our
// own clock. Save checks settledness again against the file system's
// clock and answers ErrReadAgain when the two disagree.
func (l *Locked) mappable() bool {
	if l.fi.Size() < mapMin || links(l.fi) > 1 || mountPoint(l.Real, l.fi) || l.seen.IsZero() {
		return false
	}
	c := changeTime(l.fi)
	return !c.IsZero() && c.Add(changeMargin(c, c)+mapSlack).Before(l.seen)
}

// mapSlack is added to the change-time margin before MapForChange maps a
// file, so that a file system clock a tick or two behind ours (Linux
// stamps files with a clock read at the last tick) does not make Save
// disagree and send the caller back to read the file after all.
const mapSlack = 50 * time.Millisecond

// dropMapping unmaps the file mapped by MapForChange, if any; the caller
// no longer reads it.
func (l *Locked) dropMapping() {
	if l.mapped != nil {
		unmap(l.mapped)
		l.mapped = nil
	}
}

// readWhole reads the file into memory, dropping a mapping first.
func (l *Locked) readWhole() ([]byte, error) {
	l.dropMapping()
	if _, err := l.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return readAll(l.f, l.fi.Size())
}

// CatchFault, deferred by a goroutine that reads the mapping MapForChange
// returned after it called debug.SetPanicOnFault(true), turns a fault
// inside the mapping (the file was cut short by a program that ignores
// the locks) into an error wrapping ErrChanged, stored in *err; name is
// the path as the model gave it. Any other panic goes on. A nil Locked
// catches nothing.
func (l *Locked) CatchFault(err *error, name string) {
	r := recover()
	if r == nil {
		return
	}
	if re, ok := r.(runtime.Error); ok && l != nil {
		if f, ok := re.(interface{ Addr() uintptr }); ok && l.inMapping(f.Addr()) {
			*err = fmt.Errorf("%s %w while this edit read it (it was cut short); read it again before changing it", name, ErrChanged)
			return
		}
	}
	panic(r)
}

// inMapping tells whether addr lies in the mapping, or in the rest of its
// last page.
func (l *Locked) inMapping(addr uintptr) bool {
	if len(l.mapped) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(l.mapped)))
	return addr >= start && addr-start < uintptr(len(l.mapped))+pageSize
}

// pageSize bounds the slack after a mapping's last byte that still belongs
// to it (the largest base page size in use).
const pageSize = 64 << 10

// changeMargin is how much older than a clock's reading p a change time c
// must be to be trusted (see unchanged): fineMargin when either has digits
// below 10 ms, else coarseMargin.
func changeMargin(c, p time.Time) time.Duration {
	if c.Nanosecond()%1e7 != 0 || p.Nanosecond()%1e7 != 0 {
		return fineMargin
	}
	return coarseMargin
}
