//go:build !darwin

package main

// besideExecutable returns "": off macOS shells are spawned directly. On
// Linux Go starts children with clone(CLONE_VFORK|CLONE_VM), which is cheap
// and safe, so no helper is needed; SHELLPORT_SPAWN_HELPER still forces one.
func besideExecutable() string { return "" }
