//go:build !unix

package persistent

import "runtime"

func mkfifo(string) error {
	return &UnsupportedError{Op: "a persistent shell", GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
}
