//go:build !unix

package persistent

import "github.com/shellport/shellport/internal/platform"

func mkfifo(string) error { return platform.Unsupported("persistent: a persistent shell") }
