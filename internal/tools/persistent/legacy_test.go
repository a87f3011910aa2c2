package persistent

import (
	"strings"
	"testing"
)

// Issue 16: the driver loop has a second path for bash before 4.1: before
// 4, read -t 0 reads instead of testing for input (the path reads the
// DEBUG trap back through a NUL every turn), and read -N, which the other
// path reads its wake byte and command with, came in 4.1. Bash 3.2 is
// macOS's /bin/bash; the path is forced here on the bash at hand and held
// to the same tests.
func TestLegacyLoopPath(t *testing.T) {
	testOnlyLegacyLoop = true
	t.Cleanup(func() { testOnlyLegacyLoop = false })
	if !strings.Contains(bootScript("/d", true, "/lib.so"), "if false; then") || strings.Contains(bootScript("/d", false, ""), "if false; then") || strings.Contains(bootScript("/d", true, "/lib.so"), "enable -f") {
		t.Fatal("the boot script does not choose its path as asked")
	}
	runLoopTests(t)
}

// The same tests on the path that runs the loop as shell commands on bash
// 4.1 and later: where the turn builtin cannot be loaded (no library beside
// the helper, another OS, a remote shell, a bash without loadable builtins
// or before 4.4).
func TestScriptLoopPath(t *testing.T) {
	testOnlyScriptLoop = true
	t.Cleanup(func() { testOnlyScriptLoop = false })
	runLoopTests(t)
}

// runLoopTests runs the tests that hold a path of the driver loop to what
// the default path does, on the path the caller forced.
func runLoopTests(t *testing.T) {
	t.Run("state persists", TestStatePersists)
	t.Run("script semantics", TestScriptSemantics)
	t.Run("hostile commands leave the shell working", TestHostileCommandsLeaveShellWorking)
	t.Run("hostile commands reset the shell at once", TestHostileCommandsResetShellAtOnce)
	t.Run("forged frames", TestForgedFramesDoNotEndCall)
	t.Run("token absent during the command", TestTokenAbsentDuringCommand)
}
