package persistent

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
)

// File descriptors the driver loop keeps for itself. Each command runs with
// all three closed (the shell restores them after), so neither the command
// nor its background jobs inherit them.
const (
	fdCtl = 61 // FIFO the shell reads: "r" per command, then the marker halves
	fdRet = 62 // FIFO the shell writes: "u" once started, "d" once each command has finished
	fdTTY = 63 // the terminal, kept open so `exec >/dev/null` cannot hide the frame
)

// Names in the private directory.
const (
	cmdFile = "command"
	ctlFile = "ctl"
	retFile = "ret"
)

// bootScript is the driver loop bash runs with -c. It is a single line on
// purpose: bash numbers the lines of an eval'd string from the line the
// eval sits on, so with the eval on line 1 the command's own line numbers
// appear in bash's messages ("bash: line 3: …").
//
// Once both FIFOs are open it writes "u" to the return FIFO, and the tool
// unlinks them. Per command it:
//  1. waits for "r" on the control FIFO, then reads the command file whole;
//  2. evals it at top level, fds 61–63 closed (re-enabling xtrace first if
//     the previous command left it on, so the eval line itself is never
//     traced);
//  3. with stderr silenced and xtrace off, records $?, writes "d" to the
//     return FIFO, reads the two marker halves from the control FIFO, and
//     prints them joined, with the status, to the terminal.
//
// The marker halves only enter the shell after the command has finished
// and are unset before the next one starts, so no command can find the
// marker in shell state, and the joined marker exists only on the terminal.
// Everything uses `builtin` so a function named read or printf cannot
// interfere, and nothing in the loop fails, so set -e and ERR traps left on
// by a command do not fire in it.
func bootScript(dir string) string {
	q := func(name string) string { return shellQuote(filepath.Join(dir, name)) }
	return strings.Join([]string{
		`builtin unset BASH_EXECUTION_STRING`,
		`builtin shopt -s expand_aliases`,
		`builtin set +o history +H`,
		fmt.Sprintf(`exec %d<>%s %d<>%s %d>/dev/tty`, fdCtl, q(ctlFile), fdRet, q(retFile), fdTTY),
		fmt.Sprintf(`builtin printf 'u\n' >&%d`, fdRet),
		`while :; do ` +
			fmt.Sprintf(`{ builtin read -r __shellport_c <&%d || builtin exit 97; IFS= builtin read -r -d '' __shellport_c <%s || :; } 2>/dev/null; `, fdCtl, q(cmdFile)) +
			fmt.Sprintf(`builtin eval "${__shellport_x:+builtin set -x;}$__shellport_c" %d<&- %d>&- %d>&-; `, fdCtl, fdRet, fdTTY) +
			`{ __shellport_r=$?; __shellport_x=; case $- in *x*) __shellport_x=1; builtin set +x;; esac; builtin unset __shellport_c; ` +
			fmt.Sprintf(`builtin printf 'd\n' >&%d; IFS=' ' builtin read -r __shellport_a __shellport_b <&%d; `, fdRet, fdCtl) +
			fmt.Sprintf(`builtin printf '%%s%%s %%s\n' "$__shellport_a" "$__shellport_b" "$__shellport_r" >&%d; `, fdTTY) +
			`builtin unset __shellport_a __shellport_b __shellport_r; } 2>/dev/null; done`,
	}, "; ")
}

// shellQuote quotes s as one bash word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// newMarker returns a fresh 128-bit marker (32 hex digits) and the control
// line that hands it to the shell in two halves.
func newMarker() (marker []byte, halves []byte, err error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, nil, fmt.Errorf("persistent: marker: %w", err)
	}
	marker = []byte(hex.EncodeToString(b[:]))
	halves = fmt.Appendf(nil, "%s %s\n", marker[:16], marker[16:])
	return marker, halves, nil
}
