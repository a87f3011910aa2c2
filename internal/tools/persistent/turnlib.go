package persistent

import (
	"os"
	"path/filepath"
	"runtime"
)

// TurnLibName is the file name of the turn builtin, a bash loadable
// builtin built from cmd/shellport-bash-turn and shipped beside the spawn
// helper on Linux. Loaded, it runs the costly steps of the driver loop's
// turn in C (see bootScript); without it the loop runs them as shell
// commands, with the same results.
const TurnLibName = "shellport-bash-turn.so"

// turnLibBeside is the turn builtin beside helper, "" when there is none
// (another OS, no helper, a helper installed alone). Whether the shell can
// load it is the shell's to find out: the loop falls back when it cannot.
func turnLibBeside(helper string) string {
	if runtime.GOOS != "linux" || helper == "" {
		return ""
	}
	path, err := filepath.Abs(filepath.Join(filepath.Dir(helper), TurnLibName))
	if err != nil {
		return ""
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return path
}

// bootTurnLib is the turn builtin a new shell's loop is to load: none on
// the paths a test forces.
func (c *shellConfig) bootTurnLib() string {
	if testOnlyLegacyLoop || testOnlyScriptLoop {
		return ""
	}
	return c.turnLib
}
