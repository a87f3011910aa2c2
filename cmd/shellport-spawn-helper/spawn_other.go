//go:build !linux && !darwin

package main

import (
	"errors"
	"runtime"
)

func run([]string) error {
	return errors.New("starting a program on a terminal is not supported on " + runtime.GOOS + "/" + runtime.GOARCH)
}
