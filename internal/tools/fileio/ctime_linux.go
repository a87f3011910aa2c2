//go:build linux

package fileio

import (
	"syscall"
	"time"
)

func statCtime(st *syscall.Stat_t) time.Time { return time.Unix(st.Ctim.Unix()) }
