//go:build linux

package spawnhelper_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/testkit"
)

// Issue 16: a spare reads its program's spec from the runtime with a
// parser of its own (cmd/shellport-spawn-helper/spare.c). FuzzSpareSpec
// drives that parser in the real helper (--check-spec, which starts
// nothing) with arbitrary messages: it must never crash, must refuse what
// the format does not allow, and must read what it accepts exactly as the
// format says (decodeSpec, written from the format's description).
func FuzzSpareSpec(f *testing.F) {
	helper := testkit.SpawnHelper(f)
	for _, s := range []spawnhelper.Spec{
		{Path: "/usr/bin/bash", Args: []string{"bash", "-c", "true"}, Dir: "/tmp", Env: []string{"PATH=/usr/bin", "HOME=/root"}},
		{Path: "sleep", Args: []string{"sleep", "1"}, Dir: "/", Env: []string{}},
		{Path: "p", Args: []string{"", ""}, Dir: "d", Env: []string{"", "=", "A=\n"}, Stdin: os.Stdin, FD3: os.Stdin},
	} {
		for _, scan := range []bool{false, true} {
			msg, _, ok := spawnhelper.EncodeSpec(s, scan)
			if !ok {
				f.Fatalf("spec %+v not encoded", s)
			}
			f.Add(msg)
		}
	}
	f.Add([]byte{})
	f.Add([]byte("SPS1"))
	f.Add(header(4, 0, 0, 1, 0))
	f.Add(append(header(5, 0, 0, 1, 0), "a\x00b\x00c\x00"[:5]...))
	f.Add(append(header(6, 1<<7, 0, 1, 0), "a\x00b\x00c\x00"...))
	f.Add(append(header(6, 0, 0, 0xffffffff, 0xffffffff), "a\x00b\x00c\x00"...))
	f.Fuzz(func(t *testing.T, msg []byte) {
		cmd := exec.Command(helper, "--check-spec")
		cmd.Stdin = bytes.NewReader(msg)
		out, err := cmd.Output()
		want, werr := decodeSpec(msg)
		var exit *exec.ExitError
		switch {
		case err == nil:
			if werr != nil {
				t.Fatalf("helper accepted a spec the format refuses (%v): %q", werr, out)
			}
			if string(out) != want {
				t.Fatalf("helper read\n%q\nthe format says\n%q", out, want)
			}
		case errors.As(err, &exit) && exit.ExitCode() == 2:
			if werr == nil {
				t.Fatalf("helper refused a spec the format allows: %q", want)
			}
		default:
			t.Fatalf("helper failed on %q: %v (%s)", msg, err, out)
		}
	})
}

func header(payload, roles, flags, argc, envc uint32) []byte {
	h := make([]byte, 24)
	for i, v := range []uint32{0x31535053, payload, roles, flags, argc, envc} {
		binary.NativeEndian.PutUint32(h[4*i:], v)
	}
	return h
}

// decodeSpec reads a spec by the format's description and returns what
// --check-spec prints for it.
func decodeSpec(msg []byte) (string, error) {
	if len(msg) < 24 {
		return "", errors.New("short header")
	}
	w := func(i int) uint32 { return binary.NativeEndian.Uint32(msg[4*i:]) }
	payload := msg[24:]
	switch {
	case w(0) != 0x31535053:
		return "", errors.New("magic")
	case int(w(1)) != len(payload) || len(payload) == 0:
		return "", errors.New("length")
	case w(2)&^0x7f != 0 || w(3)&^1 != 0:
		return "", errors.New("roles or flags")
	case w(4) < 1:
		return "", errors.New("no argv[0]")
	}
	if !bytes.HasSuffix(payload, []byte{0}) {
		return "", errors.New("bytes after the last string")
	}
	strs := strings.Split(string(payload[:len(payload)-1]), "\x00")
	if uint64(len(strs)) != uint64(w(4))+uint64(w(5))+2 {
		return "", fmt.Errorf("%d strings", len(strs))
	}
	return fmt.Sprintf("ok %d %d %d %d\n", w(2), w(3), w(4), w(5)) + strings.Join(strs, "\x00") + "\x00", nil
}
