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

import (
	"os"
	"path/filepath"
)

// besideLibrary returns the spawn helper shipped next to this dylib, or ""
// when there is none. On macOS the runtime spawns shells through it so that
// no fork of the large, multithreaded host process is needed. A helper that
// is present but unusable is still returned: the runtime then reports it
// instead of quietly spawning another way.
func besideLibrary() string {
	p := C.shellport_library_path()
	if p == nil {
		return ""
	}
	lib, err := filepath.Abs(C.GoString(p))
	if err != nil {
		return ""
	}
	helper := filepath.Join(filepath.Dir(lib), helperName)
	if _, err := os.Lstat(helper); err != nil {
		return ""
	}
	return helper
}
