package persistent

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
)

// File descriptors of the driver loop. The shell opens its files at the
// boot descriptors, then runs the whole loop in a group that closes them
// (`{ loop; } 30<&- …`): bash saves each one it closes for the group's
// duration, with F_DUPFD from 10 up and close-on-exec set, and the loop
// never ends, so the saved copies at 10–14 are the loop's descriptors for
// the shell's life. Close-on-exec keeps them from every program a command
// starts; bash treats them as its own saved descriptors, so a command's
// `exec 12>file` is undone, and a command that closes one ends the loop,
// which then says so. The numbers are known because the boot line first
// closes whatever sat at 10–14 and bash takes the lowest free descriptor.
// A command sees 30–34 closed and may use them as it likes.
//
// So no turn of the loop saves, closes and restores descriptors around the
// command (issue 16: five closes on each eval cost about fifty system
// calls per command), and the loop stands any `ulimit -n` that leaves bash
// a descriptor to save stdout in.
const (
	fdInbox = 10 // regular file the tool appends commands to, NUL-terminated
	fdCtl   = 11 // FIFO the shell reads: one wake byte per command ("0": in the inbox, "1": follows here); also where the loop saves the DEBUG trap while no command is pending
	fdRet   = 12 // FIFO the shell writes, opened write-only: its report after each command ("t<token> <status>", "d<status>", "e", each ended by a NUL)
	fdTTY   = 13 // the terminal, kept open so `exec >/dev/null` cannot hide the frame
	fdNull  = 14 // /dev/null, where the loop's bookkeeping errors go (a DEBUG trap's output while the loop runs goes to fdRet, see bootScript)

	bootFDBase = 30 // where the boot line opens them, fdInbox's at bootFDBase, and so on
)

// Wake bytes: where the next command is, as the last digit of the
// descriptor the loop reads it from (fdInbox, fdCtl).
const (
	wakeInbox = '0'
	wakeCtl   = '1'
)

// Names in the private directory; all are unlinked, and the directory
// removed, once the shell has reported that it is running (see
// shell.onFrame).
const (
	inboxFile = "inbox"
	ctlFile   = "ctl"
	retFile   = "ret"
)

// deadFD is where the report's output goes when the loop's previous turn
// did not run to its end: no descriptor can have that number, so the
// redirection fails and the loop ends. It catches what makes bash skip
// commands without failing them (a DEBUG trap returning non-zero under
// shopt -s extdebug), which would otherwise spin the loop forever.
const deadFD = 2147483647

// loopEndedExit is the status the shell exits with when its command loop
// ends: a command ran break outside any loop, or left the shell unable to
// run the loop (its report then names the command's own status).
const loopEndedExit = 96

// bootScript is the driver loop bash runs with -c. It is a single line on
// purpose: bash numbers the lines of an eval'd string from the line the
// eval sits on, so with the eval on line 1 the command's own line numbers
// appear in bash's messages ("bash: line 3: …"). Being one line, it is also
// parsed whole before anything runs, so no alias a command defines can
// change it.
//
// The loop is `until ! { settle && report && wait }; do eval; done`, inside
// the group that moves its descriptors to 10–14 (see fdInbox). It goes on
// only while its condition fully succeeds, and the condition is where set
// -e and ERR traps never fire. If the shell stops running commands (set
// -n: the condition then "succeeds" without running, and until stops), or
// the condition fails because the command changed the shell under it (a
// builtin it needs disabled, or shadowed by a function named builtin; one
// of its variables made read-only; its descriptors closed), the loop ends,
// reports "e" and an end frame, and the shell exits with loopEndedExit at
// once, instead of spinning or waiting for the timeout. Each turn:
//
//  1. settle and report run in one group whose stdout is the return FIFO
//     and stderr /dev/null. Its redirection takes the command's status
//     (before any command of the loop runs, so no trap can change it),
//     advances the turn's count, and holds the guard: unless the previous
//     turn ran to its end, stdout goes to deadFD and the condition fails.
//     settle unsets the token and command variables (dropping any
//     attribute a command put on them, -u, -i, -l or export, and, through
//     a nameref, its target's), saves and clears the DEBUG trap (which so
//     runs before these first loop commands only; what it prints goes
//     into the return FIFO ahead of the report, where the parser passes
//     over it, see reportLog.add), turns xtrace off, and checks that read
//     and eval work.
//  2. report draws a fresh token (64 bits of $SRANDOM where bash has it,
//     and the count) and writes the record "t<token> <status>" NUL to the
//     return FIFO: one write(2), which no other writer's bytes can split.
//     Then the frame ESC _ SP <token> ESC \ goes to the terminal. When
//     settle or report fails, "d<status>" NUL alone goes to the return
//     FIFO, so the result can still give the command's status.
//  3. wait for a wake byte (a $TMOUT timeout or a trapped signal that
//     interrupts the wait restarts it), check it and the token's length (a
//     function named builtin leaves the token empty), read the command from
//     the inbox (wake byte 0: descriptor 10) or the control FIFO (1: 11),
//     and clear the token.
//  4. eval the command at top level, restoring the command's DEBUG trap
//     and xtrace inside the eval, so the eval line itself is neither
//     traced nor seen by the trap. The eval needs no redirection: the
//     loop's descriptors are close-on-exec copies, and 30–34 are closed.
//
// Every redirection costs bash about nine system calls (it saves the
// descriptor, marks the copy close-on-exec, and restores it after), so a
// turn has four: the group's two, the DEBUG trap's save and the frame
// (issue 16; there were eleven, then five, and five closes on the eval).
// Each simple command costs bash some 6,000 instructions before it does
// anything (it copies and expands every word, prints the command for
// $BASH_COMMAND, sets $_), each builtin it runs from 4,000 to 20,000 more,
// and every word of every command is expanded again at each turn, so the
// turn keeps commands and words few (issue 16, callgrind: 527,000
// instructions per turn, then 386,000): no builtin runs with a temporary
// assignment (IFS= or TMOUT= in front of builtin read made bash rebuild
// its whole exported environment afterwards, some 46,000 instructions
// each), the DEBUG trap is cleared and read back only when trap -p
// printed one, what the eval restores is built only when there is
// something to restore, options are clustered (-rN1 -u11), and the count
// is advanced by the group's redirection. Bash before 4.1 takes a path
// that reads the DEBUG trap back every turn and reads with IFS=.
//
// Where turnLib names the turn builtin (TurnLibName) and bash (4.4 or
// later) loads it with enable -f, a third path runs steps 1 to 3 as two
// calls of it instead: `builtin __sp_turn r`, alone in the same guarded
// group, unsets the loop's variables (a nameref a command made of one is
// dropped and its target left alone, as unset -n does), saves and clears
// the DEBUG trap and xtrace (what the eval restores goes into __sp_r),
// checks eval, draws the token from the kernel and writes the record and
// the frame; `builtin __sp_turn w`, outside the group, waits for the wake
// byte (running a trapped signal's trap at once, as read would) and reads
// the command. The group, its redirection, the guard and the eval are the
// same, so a command meets the same loop: the same $?, the same traps and
// options, the same ways to end it, less the builtins the loop no longer
// runs (read, printf, trap, set, unset) and plus the turn builtin
// disabled or deleted. A turn then costs bash 120,000 instructions and 25
// system calls instead of 386,000 and 56, about 60 µs of CPU instead of
// 130 to 150 (issue 16; cmd/shellport-bash-turn). Where enable -f fails
// (no file there, as on a remote machine with the executable alone;
// another architecture; a bash without loadable builtins or one of the
// functions the builtin uses), the modern or legacy path runs as before.
//
// The token exists nowhere until the command has finished, and the tool
// accepts a frame only when the return FIFO already holds a record with
// the same token (see shell.onFrame). No output reaches the FIFO, but the
// command can write to it on purpose (>&12, the descriptor is bash's):
// what it leaves there cannot change the status of the driver's record,
// but a command that writes a whole record and prints its frame ends its
// own call with a status it chose. No descriptor of bash's own process
// can be kept from a command that bash runs; closing that needs the
// status reported from outside the shell. What the runtime does refuse
// (issue 10): a frame of the next count whose record is missing (another
// process read it out of the FIFO) or doubled (written ahead of the
// driver's with a predicted token) ends the call with its status unknown
// (see onFrame); what is written into the FIFO beyond its capacity is
// drained during a long call (see drainDelay); such a call also ends
// when the shell is found waiting for a command while the call's has not
// ended (see checkLost); and after the shell's death its records are
// believed only when its exit status is the loop's (see loopExit).
//
// legacy makes the shell take the path of bash before 4.1 whatever its
// version, without the builtin (tests); turnLib "" leaves the builtin out.
func bootScript(dir string, legacy bool, turnLib string) string {
	key := bootKey{legacy, turnLib}
	bootCache.Lock()
	template, ok := bootCache.m[key]
	if !ok {
		template = buildBootScript(bootDirMark, legacy, turnLib)
		if bootCache.m == nil {
			bootCache.m = make(map[bootKey]string)
		}
		bootCache.m[key] = template
	}
	bootCache.Unlock()
	return strings.ReplaceAll(template, bootDirMark, strings.ReplaceAll(filepath.Clean(dir), "'", `'\''`))
}

// The boot line differs from shell to shell only in the private
// directory's name, and building it cost some 16 KB of garbage in about
// 70 allocations, five times the line: 40% of what a session's open,
// first call and close allocated (issue 16; BenchmarkLiveSessionCost, per
// session: 43 → 24 KB, 258 → 191 allocations). So it is built once per
// tool configuration around bootDirMark, which no path holds, and each
// shell's directory, quoted as shellQuote quotes it inside its words,
// takes the mark's places.
const bootDirMark = "\x00dir\x00"

type bootKey struct {
	legacy  bool
	turnLib string
}

var bootCache struct {
	sync.Mutex
	m map[bootKey]string
}

// buildBootScript is bootScript, built from its parts.
func buildBootScript(dir string, legacy bool, turnLib string) string {
	q := func(name string) string { return shellQuote(filepath.Join(dir, name)) }
	// The modern path (bash 4.1 and later: read -N) and the legacy one
	// (bash before 4.1; 3.2 is macOS's /bin/bash, whose read -t 0 reads
	// instead of testing for input) differ in how they save the DEBUG
	// trap and read the next command; the rest of the turn is shared.
	//
	// Modern settle: __sp_c and __sp_t are unset (dropping any attribute
	// a command put on them, -u, -i, -l or export, and, through a
	// nameref, its target's). The DEBUG trap is printed into the control
	// FIFO, and only when it printed something (the FIFO then holds data:
	// one select, no write) is it cleared and read back. What the eval
	// must restore before the command, the DEBUG trap and xtrace, goes into
	// __sp_t[1], which the next turn's unset clears with the token: the
	// common turn pays for neither. Its trailing newline is cut (%?), so
	// the command keeps its own line numbers. Then xtrace
	// is turned off, and read and eval are checked (read -t 0 of the inbox,
	// a regular file, is always ready, so it fails only when read cannot
	// run; eval with no argument does nothing).
	modernSettle := strings.Join([]string{
		`builtin unset -v __sp_c __sp_t`,
		fmt.Sprintf(`builtin trap -p DEBUG >&%d`, fdCtl),
		fmt.Sprintf(`{ ! builtin read -t0 -u%d || { builtin trap - DEBUG && builtin printf '\0' >&%d && IFS= builtin read -r -d '' -u%d '__sp_t[1]' && __sp_t[1]="builtin ${__sp_t[1]%%?};"; }; }`, fdCtl, fdCtl, fdCtl),
		`{ [[ $- != *x* ]] || { builtin set +x && __sp_t[1]+='builtin set -x;'; }; }`,
		fmt.Sprintf(`builtin read -t0 -u%d`, fdInbox),
		`builtin eval`,
	}, " && ")
	// Legacy settle: the DEBUG trap is saved and cleared, every loop
	// variable unset, xtrace noted, and the trap read back every turn,
	// through a NUL the loop writes.
	legacySettle := strings.Join([]string{
		fmt.Sprintf(`builtin trap -p DEBUG >&%d`, fdCtl),
		`builtin trap - DEBUG`,
		`builtin unset -v __sp_c __sp_d __sp_p __sp_t`,
		`{ [[ $- != *x* ]] || { builtin set +x && __sp_p=x; }; }`,
		fmt.Sprintf(`builtin printf '\0' >&%d && IFS= builtin read -r -d '' -u%d __sp_d`, fdCtl, fdCtl),
		`builtin eval ''`,
	}, " && ")
	// report draws a fresh token (64 bits of $SRANDOM where bash has it,
	// and the turn's count, which the group's redirection has advanced)
	// and writes the record "t<token> <status>" NUL to the return FIFO:
	// one write(2), which no other writer's bytes can split.
	report := strings.Join([]string{
		`builtin printf -v__sp_t '%08X%08X%016X' "${SRANDOM:-0}" "${SRANDOM:-0}" "$__sp_n"`,
		`builtin printf 't%s %d\0' "$__sp_t" "$__sp_s"`,
	}, " && ")
	frame := fmt.Sprintf(`builtin printf '\33_SP%%s\33\\' "$__sp_t" >&%d`, fdTTY)
	// failed reports the status alone when the turn could not finish, so
	// the result can still give the command's own status, and fails in a
	// way bash cannot skip: a redirection to deadFD.
	failed := fmt.Sprintf(`{ builtin printf 'd%%d\0' "${__sp_s:-0}" >&%d; { :; } 2>&%d >&%d; }`, fdRet, fdNull, deadFD)
	// The wake byte is read with read -N, which takes it whole whatever
	// $IFS holds (read -n would drop a wake byte that $IFS contains) and
	// needs no IFS= or TMOUT= in front: a builtin run through builtin with
	// a temporary assignment makes bash rebuild its whole exported
	// environment afterwards (issue 16). A timeout ($TMOUT) or a trapped
	// signal that interrupts the wait restarts it.
	modernWait := fmt.Sprintf(`{ until builtin read -rN1 -u%d __sp_c || (( $? <= 128 )); do :; done; }`, fdCtl) +
		// The token's length is checked with the wake byte (a function
		// named builtin leaves the token empty). From the inbox the
		// command is read to its end, the file's end (the runtime appends
		// one command per call, and its NUL, which read drops), with read
		// -N, which leaves $IFS alone and returns 1 at the end of the
		// file: any other status, such as a $TMOUT timeout in the middle,
		// fails the turn. From the control FIFO, which has no end, up to
		// its NUL.
		fmt.Sprintf(` && { [[ ${#__sp_t} == 32 && ${__sp_c-} == %c ]] && { builtin read -rN2147483647 -u%d __sp_c || (( __sp_t = 0, __sp_a = $? == 1 )); }`, wakeInbox, fdInbox) +
		fmt.Sprintf(` || { [[ ${#__sp_t} == 32 && ${__sp_c-} == %c ]] && IFS= builtin read -r -d '' -u%d __sp_c && (( __sp_t = 0, __sp_a = 1 )); }; }`, wakeCtl, fdCtl)
	legacyWait := fmt.Sprintf(`{ until IFS= TMOUT= builtin read -r -n 1 -u %d __sp_c || (( $? <= 128 )); do :; done; }`, fdCtl) +
		fmt.Sprintf(` && [[ ${__sp_c-} == [%c%c] && ${#__sp_t} == 32 ]]`, wakeInbox, wakeCtl) +
		// fdInbox and fdCtl are 10 and 11, so the wake byte is the last
		// digit of the descriptor to read: no arithmetic (quoted: $IFS may
		// hold digits).
		fmt.Sprintf(` && IFS= builtin read -r -d '' -u "%d$__sp_c" __sp_c`, fdInbox/10) +
		` && __sp_t= __sp_a=1`
	// The eval restores the DEBUG trap and xtrace inside itself, so that
	// the eval line is neither traced nor seen by the trap.
	modernEval := `${__sp_t[1]-}$__sp_c`
	legacyEval := `${__sp_d:+builtin ${__sp_d%?};}${__sp_p:+builtin set -x;}$__sp_c`
	// The builtin's path (turnLib, bash 4.4 and later): __sp_turn r is
	// settle (the unset drops a nameref a command made of a loop variable
	// and leaves its target alone) and the report, including the frame;
	// __sp_turn w is the wait. What the eval restores is in __sp_r.
	// (( __sp_a )) holds only once the real w has run: a function named
	// builtin that stood in for it ends the loop here, before the eval,
	// as the token's length check does on the other paths.
	turnSettle := `builtin __sp_turn r`
	turnWait := `builtin __sp_turn w && (( __sp_a ))`
	turnEval := `${__sp_r-}$__sp_c`
	// After the loop, each report is tried as a builtin and as a plain
	// command, since either may be what stopped the loop.
	endFrame := `builtin printf '\33_SP%032d\33\\' 0; printf '\33_SP%032d\33\\' 0`
	var boot, moved strings.Builder
	boot.WriteString("exec")
	for fd := fdInbox; fd <= fdNull; fd++ {
		fmt.Fprintf(&boot, " %d>&-", fd)
	}
	// The return FIFO is opened write-only (the tool holds it read-write,
	// so the open never waits): a command's subshell inherits no way to
	// read the driver's records through the loop's descriptor.
	fmt.Fprintf(&boot, ` %d<%s %d<>%s %d>%s %d>/dev/tty %d>/dev/null`,
		bootFDBase, q(inboxFile), bootFDBase+1, q(ctlFile), bootFDBase+2, q(retFile), bootFDBase+3, bootFDBase+4)
	for fd := bootFDBase; fd <= bootFDBase+fdNull-fdInbox; fd++ {
		fmt.Fprintf(&moved, " %d>&-", fd)
	}
	// The guard is __sp_a, set to 1 at the end of every wait and counted
	// down by the group's redirection: 0 there means a turn was skipped.
	// The same arithmetic takes the command's status and advances the
	// turn's count.
	guarded := func(commands string) string {
		return fmt.Sprintf(`{ %s; } 2>&%d >&"$((__sp_s = $?, __sp_n += 1, __sp_a-- ? %d : %d))"`, commands, fdNull, fdRet, deadFD)
	}
	loop := func(turn, wait, eval string) string {
		return fmt.Sprintf(`until ! { { %s || %s; } && %s; }; do `, turn, failed, wait) +
			`builtin eval "` + eval + `"; done`
	}
	scriptTurn := func(settle string) string { return guarded(settle+" && "+report) + " && " + frame }
	modern := `(( BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 401 ))`
	if legacy {
		modern = `false`
	}
	paths := `if ` + modern + `; then ` + loop(scriptTurn(modernSettle), modernWait, modernEval) +
		`; else ` + loop(scriptTurn(legacySettle), legacyWait, legacyEval) + `; fi`
	if turnLib != "" && !legacy {
		// enable -f fails, quietly, where the library cannot be loaded:
		// no such file (a remote machine), another architecture, a bash
		// without loadable builtins or without one of the functions it
		// uses (see turn.c's load hook).
		paths = `if (( BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 404 )) && { builtin enable -f ` + shellQuote(turnLib) + ` __sp_turn; } 2>/dev/null; then ` +
			loop(guarded(turnSettle), turnWait, turnEval) + `; el` + paths
	}
	// Whichever loop ran, once it ends the group reports that it did. The
	// paths share the group and these reports, so the line (which every
	// supervisor holds in its argv) says each only once.
	paths = `{ ` + paths + `; ` +
		fmt.Sprintf(`{ builtin printf 'e\0'; printf 'e\0'; } 2>/dev/null >&%d; `, fdRet) +
		fmt.Sprintf(`{ %s; } 2>/dev/null >&%d || { %s; } >&2 2>/dev/null; `, endFrame, fdTTY, endFrame) +
		`}` + moved.String()
	return strings.Join([]string{
		`builtin unset BASH_EXECUTION_STRING`,
		`builtin shopt -s expand_aliases`,
		`builtin set +o history +H`,
		`__sp_n=0`,
		`__sp_a=1`,
		boot.String(),
		paths,
		fmt.Sprintf(`exit %d`, loopEndedExit),
	}, "; ")
}

// shellQuote quotes s as one bash word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
