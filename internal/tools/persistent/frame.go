package persistent

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// feed routes terminal bytes: output to the current capture, and at the end
// frame, the call's capture is finished and a new one starts for what
// follows. Called with s.mu held.
func (s *shell) feed(b []byte) {
	for len(b) > 0 {
		done, rest := s.scan.feed(b, s.cap.write, s.onFrame)
		if !done {
			return
		}
		b = rest
	}
}

// onFrame decides about a well-formed frame on the terminal. The driver
// writes its report ("d<status>", then "t<token>") to the return FIFO
// before it prints the frame, so when the frame is read here the report is
// already in the FIFO: a frame whose token the FIFO does not hold was
// printed by something else (a command, a background job) and is output.
// Called with s.mu held.
func (s *shell) onFrame(token []byte) frameAction {
	s.readReports()
	if string(token) == endToken {
		s.loopEnded = true
		return frameDrop
	}
	status, ok := s.reports.take(token)
	if !ok {
		return frameText
	}
	s.loopEnded = false // an end frame a command printed is forgotten at its call's end
	s.last = append(s.last[:0], token...)
	select {
	case <-s.ready:
	default:
		close(s.ready)
		s.unlinkNames()
		return frameDrop
	}
	c := s.call
	if c == nil { // cannot happen: the shell reports only after a command
		return frameDrop
	}
	c.status = status
	c.out = s.cap.finish()
	s.call = nil
	close(c.finished)
	if c.waker != nil {
		c.waker.signal()
	}
	return frameEnd
}

// unlinkNames removes the private directory's names once the shell has its
// descriptors open: without names no command can open the inbox or the
// FIFOs, block on them or read them.
func (s *shell) unlinkNames() {
	for _, name := range []string{inboxFile, ctlFile, retFile} {
		_ = os.Remove(filepath.Join(s.dir, name)) // Best effort.
	}
}

// readReports moves what the return FIFO holds into s.reports without
// blocking. Called with s.mu held.
func (s *shell) readReports() {
	if s.retConn == nil {
		return
	}
	for {
		if err := s.retConn.Read(s.retRead); err != nil || s.retErr != nil || s.retN <= 0 {
			return
		}
		if s.reports.add(s.retBuf[:s.retN]); s.reports.ended {
			s.loopEnded = true
		}
		if s.retN < len(s.retBuf) {
			return
		}
	}
}

// readRet is one read of the return FIFO into retBuf, for retConn.Read,
// made once per shell so a call allocates no closure. It never waits: an
// empty FIFO means no report. Called with s.mu held.
func (s *shell) readRet(fd uintptr) bool {
	s.retN, s.retErr = syscall.Read(int(fd), s.retBuf[:])
	return true
}

// send hands a command to the shell: appended to the inbox, or, when the
// inbox cannot take it (its file system is full, a quota), written through
// the control FIFO itself, which needs no disk.
func (s *shell) send(command string) error {
	msg := append(append(s.sendBuf[:0], command...), 0)
	if cap(msg) <= maxSendBuf {
		s.sendBuf = msg // kept for the next call; a huge command's buffer is not
	}
	if _, err := s.inbox.Write(msg); err == nil {
		s.inboxSize += int64(len(msg))
		return s.wake(wakeInbox)
	}
	// Take back a partial write, so the shell never reads half a command.
	if err := s.inbox.Truncate(s.inboxSize); err != nil {
		return fmt.Errorf("persistent: restore inbox after a failed write: %w", err)
	}
	if err := s.wake(wakeCtl); err != nil {
		return err
	}
	// The shell reads the command a byte at a time while this writes it;
	// past the FIFO's capacity the write waits for it, so it must not hold
	// up the call, which watches for the shell's death and the timeout.
	// It writes through a pollable copy of the FIFO, which closing at
	// teardown wakes (see closeFiles). The goroutine gets its own copy of
	// the command: the send buffer is the next call's.
	long, err := pollableCopy(s.ctl)
	if err != nil {
		return fmt.Errorf("persistent: write command to control FIFO: %w", err)
	}
	s.mu.Lock()
	s.ctlLong = long
	s.mu.Unlock()
	msg = append([]byte(nil), msg...)
	s.sendBuf = nil
	go func() {
		_, _ = long.Write(msg) // A failure shows as the shell's death or a timeout.
		_ = long.Close()       // Best effort; closeFiles may have closed it first.
	}()
	return nil
}

// maxSendBuf is the largest send buffer a shell keeps between calls: most
// commands fit, and thousands of idle sessions hold little (issue 16).
const maxSendBuf = 4 << 10

// wakeMsgs are the wake bytes as slices, so a wake allocates nothing.
var wakeMsgs = map[byte][]byte{wakeInbox: {wakeInbox}, wakeCtl: {wakeCtl}}

func (s *shell) wake(where byte) error {
	if _, err := s.ctl.Write(wakeMsgs[where]); err != nil {
		return fmt.Errorf("persistent: wake shell: %w", err)
	}
	return nil
}

// inboxKeep bounds the inbox: once more than this has been appended, the
// read part is released between calls.
const inboxKeep = 256 << 10

// releaseInbox frees the inbox's storage. The shell reads the inbox
// through its own offset, which must stay where it is, so the file is cut
// to nothing and grown back to its old length as a hole: the offset stays
// valid and the file holds no data. Called between calls, when the shell
// has read everything.
func (s *shell) releaseInbox() {
	if s.inboxSize <= inboxKeep {
		return
	}
	if err := s.inbox.Truncate(0); err == nil {
		_ = s.inbox.Truncate(s.inboxSize) // Best effort: on failure the next read fails and the shell is reset, said in the result.
	}
}

// Limits of what is kept from the return FIFO, which only the driver writes
// unless a command goes out of its way to.
const (
	maxReports    = 64
	maxReportLine = 64
)

// reportLog is the shell's reports not yet matched to a frame.
type reportLog struct {
	partial []byte
	lines   []report
	ended   bool // an "e" report: the command loop ended
}

type report struct {
	kind   byte           // 'd': a command finished; 't': the token of the frame that follows
	status int            // of 'd'
	token  [tokenLen]byte // of 't'
}

// add takes bytes read from the return FIFO. A whole line in b is parsed
// where it lies; only a line split across reads is copied (issue 16: no
// allocation per report).
func (l *reportLog) add(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(l.partial)+len(b) <= maxReportLine {
				l.partial = append(l.partial, b...)
			} else {
				l.partial = append(l.partial[:0], 0) // too long: a line no parse accepts
			}
			return
		}
		line := b[:i]
		if len(l.partial) > 0 {
			l.partial = append(l.partial, line...)
			line = l.partial
		}
		b = b[i+1:]
		r, ok := parseReport(line)
		l.partial = l.partial[:0]
		if ok {
			if r.kind == 'e' {
				l.ended = true
			}
			if len(l.lines) == maxReports {
				l.lines = append(l.lines[:0], l.lines[1:]...)
			}
			l.lines = append(l.lines, r)
		}
	}
}

func parseReport(line []byte) (report, bool) {
	if len(line) == 0 || len(line) > maxReportLine {
		return report{}, false
	}
	r := report{kind: line[0]}
	switch r.kind {
	case 'd':
		digits := line[1:]
		if len(digits) == 0 || len(digits) > 3 {
			return report{}, false
		}
		for _, c := range digits {
			if c < '0' || c > '9' {
				return report{}, false
			}
			r.status = r.status*10 + int(c-'0')
		}
		if r.status > 255 {
			return report{}, false
		}
	case 't':
		if len(line) != 1+tokenLen {
			return report{}, false
		}
		copy(r.token[:], line[1:])
	case 'e':
		if len(line) != 1 {
			return report{}, false
		}
	default:
		return report{}, false
	}
	return r, true
}

// take finds the report carrying token and returns the status reported
// before it (-1 when none was), dropping both.
func (l *reportLog) take(token []byte) (status int, ok bool) {
	for i, r := range l.lines {
		if r.kind != 't' || string(r.token[:]) != string(token) {
			continue
		}
		status = -1
		for j := i - 1; j >= 0; j-- {
			if l.lines[j].kind == 'd' {
				status = l.lines[j].status
				break
			}
		}
		l.lines = append(l.lines[:0], l.lines[i+1:]...)
		return status, true
	}
	return 0, false
}

// finishedStatus reports a command that finished but whose frame never
// came: the last "d" report with no token after it.
func (l *reportLog) finishedStatus() (status int, ok bool) {
	for i := len(l.lines) - 1; i >= 0; i-- {
		switch l.lines[i].kind {
		case 't':
			return 0, false
		case 'd':
			return l.lines[i].status, true
		}
	}
	return 0, false
}
