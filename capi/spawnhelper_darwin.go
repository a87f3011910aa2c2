//go:build darwin

package main

/*
#include <dlfcn.h>

// shellport_library_path names the file this code was loaded from: the
// dylib, under whatever path the host opened it.
static const char *shellport_library_path(void) {
	Dl_info info;
	if (dladdr((const void *)&shellport_library_path, &info) == 0) {
		return 0;
	}
	return info.dli_fname;
}
*/
import "C"

import "path/filepath"

// libraryDir returns the directory of the dylib this code was loaded from,
// or "" when it cannot tell.
func libraryDir() string {
	p := C.shellport_library_path()
	if p == nil {
		return ""
	}
	lib, err := filepath.Abs(C.GoString(p))
	if err != nil {
		return ""
	}
	return filepath.Dir(lib)
}
