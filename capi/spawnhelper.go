package main

import "os"

// envSpawnHelper overrides where the spawn helper is. When it is set, its
// path is used as is: the runtime rejects a missing or non-executable file
// with an error naming it, and never falls back to direct spawning.
const envSpawnHelper = "SHELLPORT_SPAWN_HELPER"

// helperName is the spawn helper's file name beside the library in a wheel.
const helperName = "shellport-spawn-helper"

// spawnHelper is the default spawn helper of the runtimes this library
// opens (runtime.Options.SpawnHelper): SHELLPORT_SPAWN_HELPER when it is set
// and not empty, else the helper shipped beside the library (macOS), else
// "" for direct spawning. It is read at every shellport_open, so a host may
// set the variable after loading the library.
func spawnHelper() string {
	if path := os.Getenv(envSpawnHelper); path != "" {
		return path
	}
	return besideLibrary()
}
