package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/shellport/shellport/internal/core"
)

const versionUsage = `usage: shellport version [--sha256]

Prints the version of this executable.

  --sha256   print the SHA-256 of this executable's file instead

Exit status: 0, 1 when the file cannot be read, 2 for a usage error.
`

// version prints the runtime's version, or with --sha256 the SHA-256 of
// this executable's own file: the Python package compares it with its
// bundled copy before installing into a sandbox, because two builds of one
// version (a development build, a rebuilt wheel) differ only there.
func version(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("version")
	sha := fs.Bool("sha256", false, "")
	if code := parse(fs, args, 0, 0, versionUsage, stdout, stderr); code >= 0 {
		return code
	}
	if !*sha {
		fmt.Fprintln(stdout, core.Version)
		return 0
	}
	sum, err := selfDigest()
	if err != nil {
		fmt.Fprintf(stderr, "shellport version: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, sum)
	return 0
}

func selfDigest() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find this executable: %w", err)
	}
	file, err := os.Open(exe)
	if err != nil {
		return "", fmt.Errorf("read this executable: %w", err)
	}
	defer file.Close()
	h := sha256.New()
	if _, err := io.Copy(h, file); err != nil {
		return "", fmt.Errorf("read this executable %q: %w", exe, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
