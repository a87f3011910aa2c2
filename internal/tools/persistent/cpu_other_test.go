//go:build !unix

package persistent

func selfUsage() (cpuNs, switches int64, ok bool) { return 0, 0, false }
