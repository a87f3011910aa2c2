package persistent

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
)

// File descriptors the driver loop keeps for itself. Each command runs with
// all of them closed (the shell restores them after), so neither the
// command nor its background jobs inherit them.
const (
	fdInbox = 60 // regular file the tool appends to: each command, then each marker, NUL-terminated
	fdCtl   = 61 // FIFO the shell reads: one "r" byte per message appended to the inbox
	fdRet   = 62 // FIFO the shell writes: "u" once started, "d" each time a command has finished
	fdTTY   = 63 // the terminal, kept open so `exec >/dev/null` cannot hide the end frame
	fdNull  = 64 // /dev/null, where the loop's own xtrace lines go
)

// Names in the private directory; all are unlinked once the shell has
// opened them (see shell.retLoop).
const (
	inboxFile = "inbox"
	ctlFile   = "ctl"
	retFile   = "ret"
)

// bootScript is the driver loop bash runs with -c. It is a single line on
// purpose: bash numbers the lines of an eval'd string from the line the
// eval sits on, so with the eval on line 1 the command's own line numbers
// appear in bash's messages ("bash: line 3: …").
//
// Once its descriptors are open it writes "u" to the return FIFO. Then, per
// command:
//  1. it waits for a byte on the control FIFO and reads the command from
//     the inbox up to its NUL (read -u on a regular file is one buffered
//     read and a seek: no open, no redirection);
//  2. it evals the command at top level with its own descriptors closed,
//     re-enabling xtrace first if the previous command left it on, so the
//     eval line itself is never traced;
//  3. it records $? and turns xtrace off (any trace of that goes to
//     /dev/null), writes "d" to the return FIFO, waits for the next byte,
//     reads the two marker halves ("H1 H2") from the inbox, and prints them
//     joined, with the status, to the terminal.
//
// The marker only enters the shell after the command has finished, as two
// halves in one variable that is emptied at once, so no command can find
// it in shell state, and the joined marker exists only on the terminal.
// Everything uses `builtin` so a function named read or printf cannot
// interfere; the waits clear TMOUT, which would otherwise time them out;
// and nothing in the loop fails, so set -e and ERR traps left on by a
// command do not fire in it.
func bootScript(dir string) string {
	q := func(name string) string { return shellQuote(filepath.Join(dir, name)) }
	return strings.Join([]string{
		`builtin unset BASH_EXECUTION_STRING`,
		`builtin shopt -s expand_aliases`,
		`builtin set +o history +H`,
		fmt.Sprintf(`exec %d<%s %d<>%s %d<>%s %d>/dev/tty %d>/dev/null`,
			fdInbox, q(inboxFile), fdCtl, q(ctlFile), fdRet, q(retFile), fdTTY, fdNull),
		fmt.Sprintf(`builtin printf u >&%d`, fdRet),
		`while :; do ` +
			fmt.Sprintf(`TMOUT= builtin read -r -n 1 -u %d __shellport_w || builtin exit 97; `, fdCtl) +
			fmt.Sprintf(`IFS= builtin read -r -d '' -u %d __shellport_c || :; `, fdInbox) +
			fmt.Sprintf(`builtin eval "${__shellport_x:+builtin set -x;}$__shellport_c" %d<&- %d<&- %d>&- %d>&- %d>&-; `, fdInbox, fdCtl, fdRet, fdTTY, fdNull) +
			fmt.Sprintf(`{ __shellport_r=$?; case $- in *x*) builtin set +x; __shellport_x=1;; *) __shellport_x=;; esac; } 2>&%d; `, fdNull) +
			fmt.Sprintf(`__shellport_c=; builtin printf d >&%d; TMOUT= builtin read -r -n 1 -u %d __shellport_w || builtin exit 97; `, fdRet, fdCtl) +
			fmt.Sprintf(`IFS= builtin read -r -d '' -u %d __shellport_h || :; `, fdInbox) +
			fmt.Sprintf(`builtin printf '%%s%%s %%s\n' "${__shellport_h%% *}" "${__shellport_h#* }" "$__shellport_r" >&%d; `, fdTTY) +
			`__shellport_h=; done`,
	}, "; ")
}

// shellQuote quotes s as one bash word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// newMarker returns a fresh 128-bit marker (32 hex digits) and the inbox
// message that hands it to the shell in two halves.
func newMarker() (marker []byte, halves []byte, err error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, nil, fmt.Errorf("persistent: marker: %w", err)
	}
	marker = []byte(hex.EncodeToString(b[:]))
	halves = fmt.Appendf(nil, "%s %s\x00", marker[:16], marker[16:])
	return marker, halves, nil
}
