//go:build !linux

package fileio

// adviseHugePages has nothing to ask for here.
func adviseHugePages([]byte) {}
