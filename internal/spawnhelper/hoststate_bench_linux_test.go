//go:build linux

package spawnhelper

import "testing"

// BenchmarkHostState is what a spawn through a spare pays to check that
// the host has not changed what a program inherits since the spare's exec.
func BenchmarkHostState(b *testing.B) {
	for b.Loop() {
		if _, ok := hostState(); !ok {
			b.Fatal("no /proc/self")
		}
	}
}
