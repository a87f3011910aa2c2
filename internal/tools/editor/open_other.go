//go:build !unix

package editor

// openFlags adds nothing where O_NONBLOCK and O_NOCTTY do not exist; the
// type check before the open still refuses special files.
const openFlags = 0
