package main

import "github.com/shellport/shellport/internal/spawnhelper"

// helperName is the spawn helper's file name beside the executable.
const helperName = spawnhelper.Name

// envSpawnHelper overrides where the spawn helper is.
const envSpawnHelper = spawnhelper.EnvVar

// spawnHelper is the default spawn helper (core.Options.SpawnHelper),
// looked up beside this executable.
func spawnHelper() string { return spawnhelper.Find(spawnhelper.BesideExecutable()) }
