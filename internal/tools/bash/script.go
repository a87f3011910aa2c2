package bash

import (
	"fmt"
	"io"
	"os"
)

// maxArgBytes is the size from which a command goes to bash through a
// descriptor instead of as its -c argument: Linux refuses a single
// argument of 128 KiB or more (MAX_ARG_STRLEN, the terminating NUL
// included). Below it nothing changes: bash -c COMMAND, exactly.
const maxArgBytes = 128 << 10

// trampoline is the -c argument of a command passed through fd 3. It reads
// the command's exact bytes into BASH_EXECUTION_STRING (which then holds
// what it would hold under bash -c COMMAND), closes fd 3 so that no process
// the command starts inherits it, and evaluates the command on line 1, so
// that line numbers, $0 ("bash"), $? (0) and set -e behave as under
// bash -c. The one difference: a syntax error is reported as "bash: eval:
// line N: …" rather than "bash: -c: line N: …". The text ends in a NUL,
// which read -d ” stops at with status 0.
const trampoline = `IFS= read -r -d '' BASH_EXECUTION_STRING <&3; exec 3<&-; eval "$BASH_EXECUTION_STRING"`

// writeScript writes command and a NUL to f and rewinds it.
func writeScript(f *os.File, command string) error {
	if _, err := f.WriteString(command + "\x00"); err != nil {
		return fmt.Errorf("write command file: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("rewind command file: %w", err)
	}
	return nil
}
