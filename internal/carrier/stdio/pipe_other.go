//go:build !linux

package stdio

import "io"

// pollStreams returns in and out as they are: only Linux can open a pipe
// anew through /proc/self/fd (see pipe_linux.go).
func pollStreams(in io.Reader, out io.Writer) (_ io.Reader, _ io.Writer, polled waitReporter, closeAll func()) {
	return in, out, nil, func() {}
}
