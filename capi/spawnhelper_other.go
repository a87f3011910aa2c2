//go:build !darwin && !linux && cgo

package main

// libraryDir returns "": only Linux and macOS builds ship a helper beside
// the library.
func libraryDir() string { return "" }
