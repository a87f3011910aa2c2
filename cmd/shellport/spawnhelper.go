package main

import "os"

// envSpawnHelper overrides where the spawn helper is. When it is set, its
// path is used as is: the runtime rejects a missing or non-executable file
// with an error naming it, and never falls back to direct spawning.
const envSpawnHelper = "SHELLPORT_SPAWN_HELPER"

// helperName is the spawn helper's file name beside the executable.
const helperName = "shellport-spawn-helper"

// spawnHelper is the default spawn helper (runtime.Options.SpawnHelper):
// SHELLPORT_SPAWN_HELPER when it is set and not empty, else the helper
// shipped beside this executable (macOS), else "" for direct spawning.
func spawnHelper() string {
	if path := os.Getenv(envSpawnHelper); path != "" {
		return path
	}
	return besideExecutable()
}
