//go:build !darwin

package main

// besideLibrary returns "": off macOS shells are spawned directly. On Linux
// Go starts children with clone(CLONE_VFORK|CLONE_VM), which copies nothing
// of the host and runs none of its fork handlers, so no helper is needed;
// SHELLPORT_SPAWN_HELPER still forces one.
func besideLibrary() string { return "" }
