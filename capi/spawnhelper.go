package main

import "github.com/shellport/shellport/internal/spawnhelper"

// spawnHelper is the default spawn helper of the runtimes this library
// opens (core.Options.SpawnHelper), looked up beside the library.
func spawnHelper() string { return spawnhelper.Find(libraryDir()) }
