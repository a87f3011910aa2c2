package persistent

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

func TestReportLog(t *testing.T) {
	var l reportLog
	l.add([]byte("tABCDEF0123456789ABCDEF0123456789 3\x00d0\x00t00"))
	if st, _, ok := l.take([]byte("ABCDEF0123456789ABCDEF0123456789")); !ok || st != 3 {
		t.Fatalf("take: %d %v", st, ok)
	}
	if _, ok := l.finishedStatus(); !ok {
		t.Fatal("a status with no token after it is a finished command")
	}
	l.add([]byte("00000000000000000000000000001 0\x00e\x00"))
	if st, _, ok := l.take([]byte("0000000000000000000000000000001")); ok {
		t.Fatalf("a 31-digit token matched (%d)", st)
	}
	if !l.ended {
		t.Fatal("e report not seen")
	}
	for _, junk := range []string{"d256\x00", "d-1\x00", "dx\x00", "tSHORT 0\x00", "e1\x00", "\x00", "[DEBUG]\x00",
		"tABCDEF0123456789ABCDEF012345678g 0\x00", "tABCDEF0123456789ABCDEF0123456789\x00", "tABCDEF0123456789ABCDEF0123456789 1000\x00", "tABCDEF0123456789ABCDEF0123456789 01\x00", "d00\x00",
		"d0\n", "e\n", "done\x00", "xe\x00"} {
		var j reportLog
		j.add([]byte(junk))
		if len(j.lines) != 0 || j.ended {
			t.Errorf("%q parsed as %+v", junk, j.lines)
		}
	}
}

// Issue 10: a command holds the return FIFO's descriptor too, and whatever
// it writes there before the driver's record, a partial record included,
// neither changes the status the record carries nor hides the record.
func TestReportLogIgnoresWhatPrecedesRecord(t *testing.T) {
	token := []byte("ABCDEF0123456789ABCDEF0123456789")
	for _, before := range []string{"d0\nd", "d0\x00d", "tABCDEF0123456789ABCDEF0123456789 0\nx", "t", "0 ", strings.Repeat("x", 10000), "e", "d"} {
		var l reportLog
		l.add([]byte(before))
		l.add([]byte("tABCDEF0123456789ABCDEF0123456789 1\x00"))
		if st, _, ok := l.take(token); !ok || st != 1 {
			t.Errorf("after %.20q: take: %d %v, want 1 true", before, st, ok)
		}
	}
}

// FuzzReportLog feeds arbitrary bytes, in arbitrary pieces, to the parser
// of the return FIFO: it keeps its bounds, and a token is matched only
// after a well-formed "t" record carrying it.
func FuzzReportLog(f *testing.F) {
	f.Add([]byte("tABCDEF0123456789ABCDEF0123456789 0\x00"), []byte{1, 7}, []byte("ABCDEF0123456789ABCDEF0123456789"))
	f.Add([]byte("d12\x00d\x00tt\x00e\x00\x00\x00"), []byte{3}, []byte("t"))
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
		st, _, ok := l.take(token)
		if ok && !bytes.Contains(data, []byte("t"+string(token)+" "+strconv.Itoa(st)+"\x00")) {
			t.Fatalf("token %q matched with status %d without a t record carrying both", token, st)
		}
	})
}

// Issue 16: reading a report allocates nothing once the log has room, and
// a record longer than any report, split across reads, is read from its
// end.
// Issue 10: two records with one token are not believed: the driver
// writes one per token, so the other was written by whoever knew it.
func TestReportLogRefusesDoubledToken(t *testing.T) {
	var l reportLog
	token := []byte("0000000000000000000000000000000A")
	l.add([]byte("t0000000000000000000000000000000A 0\x00d1\x00t0000000000000000000000000000000A 1\x00"))
	if _, found, ok := l.take(token); !found || ok {
		t.Fatalf("take of a doubled token: found %v, ok %v", found, ok)
	}
	l.add([]byte("t0000000000000000000000000000000A 1\x00"))
	if st, found, ok := l.take(token); !found || !ok || st != 1 {
		t.Fatalf("take of a single token: %d %v %v", st, found, ok)
	}
}

func TestReportLogAllocatesNothing(t *testing.T) {
	var l reportLog
	report := []byte("tABCDEF0123456789ABCDEF0123456789 0\x00")
	token := []byte("ABCDEF0123456789ABCDEF0123456789")
	l.add(report)
	l.take(token)
	if n := testing.AllocsPerRun(100, func() {
		l.add(report[:5])
		l.add(report[5:])
		if st, _, ok := l.take(token); !ok || st != 0 {
			t.Fatalf("take: %d %v", st, ok)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per report", n)
	}
	var g reportLog
	g.add([]byte("d" + strings.Repeat("9", maxReportLine)))
	g.add([]byte("1\x00"))
	if len(g.lines) != 0 {
		t.Fatalf("an overlong status parsed as %+v", g.lines)
	}
	g.add([]byte(strings.Repeat("x", 3*maxReportLine)))
	g.add(report[:7])
	g.add(report[7:])
	if st, _, ok := g.take(token); !ok || st != 0 {
		t.Fatalf("a record after a long partial one: take: %d %v", st, ok)
	}
}

// BenchmarkReportLog is the runtime's share of a report: the return FIFO's
// bytes parsed and matched to the frame's token.
func BenchmarkReportLog(b *testing.B) {
	var l reportLog
	report := []byte("tABCDEF0123456789ABCDEF0123456789 0\x00")
	token := []byte("ABCDEF0123456789ABCDEF0123456789")
	b.ReportAllocs()
	for b.Loop() {
		l.add(report)
		l.take(token)
	}
}
