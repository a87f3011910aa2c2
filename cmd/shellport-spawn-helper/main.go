// Command shellport-spawn-helper starts a program on a terminal it is given,
// as the leader of a new session with that terminal as its controlling
// terminal. It exists for spawners that cannot set a controlling terminal
// themselves: posix_spawn on macOS can create the session but not attach
// the terminal.
//
// Usage:
//
//	shellport-spawn-helper DIR PROGRAM [ARG...]
//
// The terminal (its slave side) arrives as fd 3 and the environment is the
// program's. The helper calls setsid, makes fd 3 the controlling terminal
// (TIOCSCTTY), duplicates it onto fds 0, 1 and 2, resets every signal to its
// default disposition and unblocks all of them, marks every fd from 3 up
// close-on-exec, changes to DIR (an empty DIR keeps the current one) and
// execs PROGRAM with ARG... (a PROGRAM without a slash is searched in PATH).
//
// On any failure it writes one line, "shellport-spawn-helper: <error>", to
// fd 2 (the terminal, once it has been duplicated there) and exits with
// status 127.
package main

import "os"

// failStatus is the exit status of a failed start, as a shell uses 127 for
// a command it could not run.
const failStatus = 127

func main() {
	err := run(os.Args[1:])
	// run only returns on failure: on success the process image is gone.
	msg := "shellport-spawn-helper: " + err.Error() + "\n"
	_, _ = os.Stderr.WriteString(msg) // Best effort: nowhere else to report.
	os.Exit(failStatus)
}
