package output

// Log is a background task's output log: a spill file whose every write
// reaches the file before Append returns, since the task's reader reads it
// back (from another descriptor) while the task still writes. It is capped
// at SpillLimit, like every spill file, and says so in the same words.
type Log struct{ s *spillFile }

// logBuffer is small: a log's writes go straight to the file (bufio copies
// nothing when its buffer is empty and the write is larger than it).
const logBuffer = 4 << 10

// CreateLog creates a log file named after prefix in dir (the system's
// temporary directory when empty).
func CreateLog(dir, prefix string) (*Log, error) {
	s, err := createSpillSized(dir, prefix, logBuffer)
	if err != nil {
		return nil, err
	}
	return &Log{s: s}, nil
}

// Name is the log's path.
func (l *Log) Name() string { return l.s.f.Name() }

// Append writes p to the log, up to the cap.
func (l *Log) Append(p []byte) {
	l.s.write(p)
	_ = l.s.flush() // recorded in the log's error, which Sound reports
}

// Sound reports whether the log holds every byte appended so far: no
// write failed and the cap was not reached.
func (l *Log) Sound() bool { return l.s.err == nil && !l.s.cut }

// Finish notes a cap that was reached, then flushes and closes the file.
func (l *Log) Finish() error {
	l.s.endSection()
	return l.s.finish()
}
