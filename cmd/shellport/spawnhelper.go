package main

import "github.com/shellport/shellport/internal/spawnhelper"

// helperName is the spawn helper's file name beside the executable.
const helperName = spawnhelper.Name

// envSpawnHelper overrides where the spawn helper is.
const envSpawnHelper = spawnhelper.EnvVar

// spawnHelper is the default spawn helper (core.Options.SpawnHelper),
// looked up beside this executable, and the error to report when there is
// none.
func spawnHelper() (string, error) {
	dir := spawnhelper.BesideExecutable()
	if path := spawnhelper.Find(dir); path != "" {
		return path, nil
	}
	return "", spawnhelper.NotFound(dir, "beside the executable")
}
