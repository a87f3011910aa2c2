package persistent

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/shellport/shellport/internal/rawio"
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
// writes its report ("t<token> <status>") to the return FIFO
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
	status, found, ok := s.reports.take(token)
	if found && !ok && s.call != nil {
		// Two records carry this token: the call cannot say which status
		// is the command's. It ends here and the shell is reset.
		s.count = tokenCount(token)
		c := s.call
		c.taken = true
		s.finishCall(c, 0)
		return frameEnd
	}
	if !ok {
		c := s.call
		if c == nil || tokenCount(token) != s.count+1 {
			return frameText
		}
		// The frame carries the count the driver's next report will have,
		// but the return FIFO holds no record of it: another process read
		// the record out of the FIFO (a background job opening
		// /proc/$$/fd/12), or the command printed the frame the driver is
		// about to print. Either way the driver's report cannot be had and
		// no status can be believed; waiting would only reach the timeout
		// (issue 10). The call ends here and the shell is reset.
		c.taken = true
		s.finishCall(c, 0)
		return frameEnd
	}
	s.loopEnded = false // an end frame a command printed is forgotten at its call's end
	s.last = append(s.last[:0], token...)
	s.count = tokenCount(token)
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
	s.finishCall(c, status)
	return frameEnd
}

// finishCall ends the running call c with status and the output so far.
// Called with s.mu held.
func (s *shell) finishCall(c *callState, status int) {
	c.status = status
	c.out = s.cap.finish()
	s.call = nil
	close(c.finished)
	if c.waker != nil {
		c.waker.signal()
	}
	s.frameEnded(c)
}

// tokenCount is the count in a token: its last 16 hex digits, the
// driver's turn counter, which grows by one per report.
func tokenCount(token []byte) uint64 {
	var n uint64
	for _, c := range token[len(token)-16:] {
		switch {
		case c >= '0' && c <= '9':
			n = n<<4 | uint64(c-'0')
		case c >= 'A' && c <= 'F':
			n = n<<4 | uint64(c-'A'+10)
		}
	}
	return n
}

// unlinkNames removes the private directory's names once the shell has its
// descriptors open: without names no command can open the inbox or the
// FIFOs, block on them or read them. The directory goes too, so a runtime
// killed later leaves nothing behind in it (terminate removes it when the
// shell never got this far).
func (s *shell) unlinkNames() {
	for _, name := range []string{inboxFile, ctlFile, retFile} {
		_ = os.Remove(filepath.Join(s.dir, name)) // Best effort.
	}
	_ = os.Remove(s.dir) // Best effort: terminate tries again.
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

// drainDelay is how long a call runs before the return FIFO is drained
// while it runs. The driver writes its report there and then prints the
// frame, and the FIFO is read when the frame arrives; but the FIFO holds
// 64 KiB, and a command or a DEBUG trap that writes more into it (through
// descriptor 12, or as the trap's output while the loop runs, which goes
// there) would block the shell, and the call would wait for its timeout.
// A call that takes longer than this reads the FIFO as data arrives, in
// the Go poller, until it ends. Calls that end sooner, most of them, pay
// nothing for it (issue 16: the FIFO is outside the poller because each
// write into a polled FIFO wakes the runtime).
const drainDelay = 50 * time.Millisecond

// armDrain starts the drain timer for the call just sent, when the call
// waits without a waker (whose own deadline otherwise says when).
func (s *shell) armDrain() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.drainTimer == nil {
		s.drainTimer = time.AfterFunc(drainDelay, s.startDrain)
		return
	}
	s.drainTimer.Reset(drainDelay)
}

// startDrain starts draining the return FIFO for the running call, from a
// pollable copy of it that stopDrain closes.
func (s *shell) startDrain() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.call == nil || s.drainFile != nil || s.ret == nil || s.closed {
		return
	}
	f, err := pollableCopy(s.ret)
	if err != nil {
		return // The FIFO is then read at the frame only, as before.
	}
	rc, err := f.SyscallConn()
	if err != nil {
		_ = f.Close() // Best effort.
		return
	}
	s.drainFile = f
	go func() {
		// Returns when stopDrain closes f.
		_ = rc.Read(s.drainRet)
	}()
}

// drainRet reads what the return FIFO holds into s.reports; it returns
// false (wait for more) once the FIFO is empty. The read is made under
// s.mu, so the records keep their order with those onFrame reads.
func (s *shell) drainRet(fd uintptr) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		n, err := rawio.Read(fd, s.retBuf[:])
		if n > 0 {
			if s.reports.add(s.retBuf[:n]); s.reports.ended {
				s.loopEnded = true
			}
			continue
		}
		return err != syscall.EAGAIN && err != syscall.EINTR
	}
}

// stopDrain stops the drain timer and any drain in progress. Not called
// with s.mu held: closing the copy waits for a read in progress.
func (s *shell) stopDrain() {
	s.mu.Lock()
	if s.drainTimer != nil {
		s.drainTimer.Stop()
	}
	f := s.drainFile
	s.drainFile = nil
	s.mu.Unlock()
	if f != nil {
		_ = f.Close() // Best effort.
	}
}

// readRet is one read of the return FIFO into retBuf, for retConn.Read,
// made once per shell so a call allocates no closure. It never waits: an
// empty FIFO means no report. Called with s.mu held.
func (s *shell) readRet(fd uintptr) bool {
	s.retN, s.retErr = rawio.Read(fd, s.retBuf[:])
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
	if err := s.writeInbox(msg); err == nil {
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
	if err := s.writeRaw(s.ctlConn, wakeMsgs[where]); err != nil {
		return fmt.Errorf("persistent: wake shell: %w", err)
	}
	return nil
}

// writeInbox appends msg to the inbox. On a memory file system the write
// cannot wait for a disk, so it is made without telling the scheduler
// (see package rawio); elsewhere it goes through os, which lets the scheduler
// hand the thread's P on while the kernel waits for the disk.
func (s *shell) writeInbox(msg []byte) error {
	if s.inboxInMemory {
		return s.writeRaw(s.inboxConn, msg)
	}
	_, err := s.inbox.Write(msg)
	return err
}

// writeRaw writes all of msg to rc's descriptor with rawio.Write, through
// a callback made once per shell (see writeOut) so that a write allocates
// nothing. Only the goroutine sending the call's command writes.
func (s *shell) writeRaw(rc syscall.RawConn, msg []byte) error {
	s.outMsg, s.outErr = msg, nil
	err := rc.Write(s.writeOutFn)
	if err == nil {
		err = s.outErr
	}
	s.outMsg, s.outErr = nil, nil
	return err
}

// writeOut is writeRaw's callback. A descriptor that cannot take it all
// (a full FIFO, a full file system) fails: the control FIFO is
// non-blocking and outside the poller, so a write never waits (see
// openFIFO).
func (s *shell) writeOut(fd uintptr) bool {
	for len(s.outMsg) > 0 {
		n, err := rawio.Write(fd, s.outMsg)
		if err != nil {
			s.outErr = err
			return true
		}
		if n == 0 {
			s.outErr = io.ErrShortWrite
			return true
		}
		s.outMsg = s.outMsg[n:]
	}
	return true
}

// inboxKeep bounds the inbox: once more than this has been appended since
// its storage was last released, the read part is released between calls.
// Small, since the inbox may be in memory (see privateBases): an idle
// shell holds at most this much of it, and releasing costs two system
// calls every few calls at most (issue 16; it was 256 KiB).
const inboxKeep = 4 << 10

// releaseInbox frees the inbox's storage. The shell reads the inbox
// through its own offset, which must stay where it is, so the file is cut
// to nothing and grown back to its old length as a hole: the offset stays
// valid and the file holds no data. Called between calls, when the shell
// has read everything.
func (s *shell) releaseInbox() {
	if s.inboxSize-s.inboxReleased <= inboxKeep {
		return
	}
	if err := s.inbox.Truncate(0); err == nil {
		_ = s.inbox.Truncate(s.inboxSize) // Best effort: on failure the next read fails and the shell is reset, said in the result.
	}
	s.inboxReleased = s.inboxSize
}

// Limits of what is kept from the return FIFO. The driver writes there, but
// a command can too: it holds the loop's descriptor (see fdRet).
const (
	maxReports    = 64
	maxReportLine = 64 // the tail of a record kept; the driver's records are shorter
)

// reportLog is the shell's reports not yet matched to a frame.
type reportLog struct {
	partial []byte
	lines   []report
	ended   bool // an "e" report: the command loop ended
}

type report struct {
	kind   byte           // 'd': a command finished but its turn failed; 't': the token of the frame that follows, with the status
	status int            // of 'd' and 't'
	token  [tokenLen]byte // of 't'
}

// add takes bytes read from the return FIFO: records, each ended by a NUL.
// The driver writes each record in one write(2), so its bytes are never
// split by another writer's, but a command can write into the FIFO before
// it (a partial record, glued to the front of the driver's): a record is
// read from its end, and only its last maxReportLine bytes are kept. A
// whole record in b is parsed where it lies; only one split across reads
// is copied (issue 16: no allocation per report).
func (l *reportLog) add(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			l.partial = appendTail(l.partial, b)
			return
		}
		line := b[:i]
		if len(l.partial) > 0 {
			l.partial = appendTail(l.partial, line)
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

// appendTail appends b to p and keeps the last maxReportLine bytes, in
// p's own storage.
func appendTail(p, b []byte) []byte {
	if len(b) >= maxReportLine {
		return append(p[:0], b[len(b)-maxReportLine:]...)
	}
	if over := len(p) + len(b) - maxReportLine; over > 0 {
		p = append(p[:0], p[over:]...)
	}
	return append(p, b...)
}

// parseReport reads the record at the end of line, "t<token> <status>" or
// "d<status>", whatever precedes it; or "e", alone.
func parseReport(line []byte) (report, bool) {
	n := len(line)
	if n == 0 {
		return report{}, false
	}
	if n == 1 && line[0] == 'e' { // whole: a DEBUG trap's stray words must not end the loop
		return report{kind: 'e'}, true
	}
	// The status: one to three digits at the end, at most 255, as %d
	// writes it.
	i := n
	for i > 0 && n-i < 3 && line[i-1] >= '0' && line[i-1] <= '9' {
		i--
	}
	if i == n || i == 0 || line[i] == '0' && n-i > 1 {
		return report{}, false
	}
	r := report{}
	for _, c := range line[i:] {
		r.status = r.status*10 + int(c-'0')
	}
	if r.status > 255 {
		return report{}, false
	}
	switch {
	case line[i-1] == 'd':
		r.kind = 'd'
	case line[i-1] == ' ' && i-1 >= 1+tokenLen && line[i-2-tokenLen] == 't':
		tok := line[i-1-tokenLen : i-1]
		for _, c := range tok {
			if (c < '0' || c > '9') && (c < 'A' || c > 'F') {
				return report{}, false
			}
		}
		r.kind = 't'
		copy(r.token[:], tok)
	default:
		return report{}, false
	}
	return r, true
}

// take finds the report carrying token and returns the status it
// carries, dropping it and every report before it. found is false when no
// report carries token; ok is false too when more than one does: the
// driver writes one record per token, so another came from a command or a
// job that knew the token (a counter alone where bash lacks $SRANDOM, or
// after unset SRANDOM) and wrote it ahead of the driver's, and neither
// status can be believed (issue 10).
func (l *reportLog) take(token []byte) (status int, found, ok bool) {
	at := -1
	for i, r := range l.lines {
		if r.kind != 't' || string(r.token[:]) != string(token) {
			continue
		}
		if at >= 0 {
			l.lines = append(l.lines[:0], l.lines[i+1:]...)
			return 0, true, false
		}
		at, status = i, r.status
	}
	if at < 0 {
		return 0, false, false
	}
	l.lines = append(l.lines[:0], l.lines[at+1:]...)
	return status, true, true
}

// pendingToken reports whether a token record waits for its frame.
func (l *reportLog) pendingToken() bool {
	for _, r := range l.lines {
		if r.kind == 't' {
			return true
		}
	}
	return false
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
