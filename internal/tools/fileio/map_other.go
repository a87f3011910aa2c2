//go:build !unix

package fileio

import (
	"errors"
	"os"
)

// mapFile refuses: here MapForChange always reads.
func mapFile(*os.File, int64) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmap([]byte) {}

func isFault(error) bool { return false }
