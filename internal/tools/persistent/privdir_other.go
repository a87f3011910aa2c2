//go:build !linux

package persistent

// privateBases is empty: private directories go in os.TempDir() (see the
// Linux version).
func privateBases() []string { return nil }

// onMemoryFS is false: no file system is known to be in memory here.
func onMemoryFS(string) bool { return false }
