package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Issue 15: `version --sha256` is the digest of the executable's own file,
// which shellport.remote compares before installing into a sandbox.
func TestVersionSHA256(t *testing.T) {
	exe := buildExecutable(t)
	out, err := exec.Command(exe, "version", "--sha256").Output()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if got, want := strings.TrimSpace(string(out)), hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("version --sha256 printed %q, the file's digest is %q", got, want)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"version", "--sha"}, nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), `unknown flag "--sha"`) || stdout.Len() != 0 {
		t.Fatalf("bad flag: code %d, stderr %q, stdout %q", code, stderr.String(), stdout.String())
	}
}
