//go:build !unix

package fileio

import (
	"context"
	"io/fs"
	"os"
	"time"
)

// keyOf has no file identity to offer here; the name's own lock is all.
func keyOf(_ fs.FileInfo, path string) fileKey { return fileKey{path: "\x00" + path} }

// flockFile does nothing where there are no advisory locks; edits from
// other processes are then caught by the checks before the write only.
func flockFile(context.Context, *os.File) error { return nil }

func links(fs.FileInfo) uint64 { return 1 }

func changeTime(fs.FileInfo) time.Time { return time.Time{} }

func mountPoint(string, fs.FileInfo) bool { return false }
