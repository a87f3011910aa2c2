//go:build !unix

package persistent

import (
	"os"

	"github.com/shellport/shellport/internal/platform"
)

func mkfifo(string) error { return platform.Unsupported("persistent: a persistent shell") }

func openFIFO(string) (*os.File, error) {
	return nil, platform.Unsupported("persistent: a persistent shell")
}

func pollableCopy(*os.File) (*os.File, error) {
	return nil, platform.Unsupported("persistent: a persistent shell")
}
