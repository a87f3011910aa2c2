package persistent

import (
	"bytes"
	"strings"
	"testing"
)

func TestReportLog(t *testing.T) {
	var l reportLog
	l.add([]byte("d3\ntABCDEF0123456789ABCDEF0123456789\nd0\nt00"))
	if st, ok := l.take([]byte("ABCDEF0123456789ABCDEF0123456789")); !ok || st != 3 {
		t.Fatalf("take: %d %v", st, ok)
	}
	if _, ok := l.finishedStatus(); !ok {
		t.Fatal("a status with no token after it is a finished command")
	}
	l.add([]byte("00000000000000000000000000001\ne\n"))
	if st, ok := l.take([]byte("0000000000000000000000000000001")); ok {
		t.Fatalf("a 31-digit token matched (%d)", st)
	}
	if !l.ended {
		t.Fatal("e report not seen")
	}
	for _, junk := range []string{"d256\n", "d-1\n", "dx\n", "tSHORT\n", "e1\n", "\n", "[DEBUG]\n"} {
		var j reportLog
		j.add([]byte(junk))
		if len(j.lines) != 0 || j.ended {
			t.Errorf("%q parsed as %+v", junk, j.lines)
		}
	}
}

// FuzzReportLog feeds arbitrary bytes, in arbitrary pieces, to the parser
// of the return FIFO: it keeps its bounds, and a token is matched only
// after a well-formed "t" line carrying it.
func FuzzReportLog(f *testing.F) {
	f.Add([]byte("d0\ntABCDEF0123456789ABCDEF0123456789\n"), []byte{1, 7}, []byte("ABCDEF0123456789ABCDEF0123456789"))
	f.Add([]byte("d12\nd\ntt\ne\n\n\n"), []byte{3}, []byte("t"))
	f.Fuzz(func(t *testing.T, data, split, token []byte) {
		var l reportLog
		rest := data
		for i := 0; len(rest) > 0; i++ {
			n := len(rest)
			if len(split) > 0 {
				n = min(max(int(split[i%len(split)]), 1), len(rest))
			}
			l.add(rest[:n])
			rest = rest[n:]
		}
		if len(l.lines) > maxReports || len(l.partial) > maxReportLine {
			t.Fatalf("bounds: %d lines, %d partial", len(l.lines), len(l.partial))
		}
		_, ok := l.take(token)
		if ok && !bytes.Contains(data, append(append([]byte("t"), token...), '\n')) {
			t.Fatalf("token %q matched without a t line carrying it", token)
		}
	})
}

// Issue 16: reading a report allocates nothing once the log has room, and
// a line longer than any report, split across reads, never glues into a
// valid one.
func TestReportLogAllocatesNothing(t *testing.T) {
	var l reportLog
	report := []byte("d0\ntABCDEF0123456789ABCDEF0123456789\n")
	token := []byte("ABCDEF0123456789ABCDEF0123456789")
	l.add(report)
	l.take(token)
	if n := testing.AllocsPerRun(100, func() {
		l.add(report[:5])
		l.add(report[5:])
		if st, ok := l.take(token); !ok || st != 0 {
			t.Fatalf("take: %d %v", st, ok)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per report", n)
	}
	var g reportLog
	g.add([]byte("d" + strings.Repeat("9", maxReportLine)))
	g.add([]byte("1\n"))
	if len(g.lines) != 0 {
		t.Fatalf("an overlong line parsed as %+v", g.lines)
	}
}

// BenchmarkReportLog is the runtime's share of a report: the return FIFO's
// bytes parsed and matched to the frame's token.
func BenchmarkReportLog(b *testing.B) {
	var l reportLog
	report := []byte("d0\ntABCDEF0123456789ABCDEF0123456789\n")
	token := []byte("ABCDEF0123456789ABCDEF0123456789")
	b.ReportAllocs()
	for b.Loop() {
		l.add(report)
		l.take(token)
	}
}
