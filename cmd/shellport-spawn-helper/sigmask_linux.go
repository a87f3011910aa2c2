//go:build linux

package main

import "golang.org/x/sys/unix"

func unblockSignals() error {
	var none unix.Sigset_t
	return unix.PthreadSigmask(unix.SIG_SETMASK, &none, nil)
}
