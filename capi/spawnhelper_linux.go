//go:build linux && cgo

package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
)

// libraryDir returns the directory of the shared library this code was
// loaded from, or "" when it cannot tell. It finds the mapping of its own
// code in /proc/self/maps rather than calling dladdr: on the glibc 2.17
// baseline of the Linux wheels dladdr lives in libdl, which the library
// must not need.
func libraryDir() string {
	pc := uint64(reflect.ValueOf(libraryDir).Pointer())
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(maps), "\n") {
		// start-end perms offset dev inode path (the path may hold spaces)
		f := strings.SplitN(line, " ", 6)
		if len(f) < 6 {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || pc < start || pc >= end {
			continue
		}
		path := strings.TrimSuffix(strings.TrimSpace(f[5]), " (deleted)")
		if !strings.HasPrefix(path, "/") {
			return ""
		}
		return filepath.Dir(path)
	}
	return ""
}
