//go:build !darwin

package main

// libraryDir returns "": only macOS builds ship a helper beside the library.
func libraryDir() string { return "" }
