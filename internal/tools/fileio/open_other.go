//go:build !unix

package fileio

// openFlags adds nothing where O_NONBLOCK and O_NOCTTY do not exist.
const openFlags = 0
