//go:build !linux

package persistent

// privateBases is empty: private directories go in os.TempDir() (see the
// Linux version).
func privateBases() []string { return nil }
