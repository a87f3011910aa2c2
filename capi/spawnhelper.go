//go:build cgo

package main

import "github.com/shellport/shellport/internal/spawnhelper"

// spawnHelper is the default spawn helper of the runtimes this library
// opens (core.Options.SpawnHelper), looked up beside the library, and the
// error to report when there is none.
func spawnHelper() (string, error) {
	dir := libraryDir()
	if path := spawnhelper.Find(dir); path != "" {
		return path, nil
	}
	return "", spawnhelper.NotFound(dir, "beside the library")
}
