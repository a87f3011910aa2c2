package persistent

import "testing"

// A command may set $IFS to anything, digits included. The loop reads
// the wake byte ("0" or "1") with read -N, which leaves $IFS alone;
// before, read -n dropped a wake byte that $IFS held, so the shell after
// IFS=01 stopped its loop at the next call.
func TestIFSHoldingWakeBytes(t *testing.T) {
	onEveryLoopPath(t, func(path string) {
		f := newFixture(t, Config{})
		f.expect("kept=yes; IFS=01", "[no output]")
		sh := f.shellOf("s")
		f.expect("echo ok", "ok\n")
		f.expect("IFS=' 0'; echo \"$kept\"", "yes\n")
		f.expect("printf '%s\\n' 'a  ' 'b0'", "a  \nb0\n")
		if f.shellOf("s") != sh {
			t.Fatalf("%s: the shell was replaced", path)
		}
	})
}

// The DEBUG trap the loop saves is restored inside the eval, ahead of
// the command on the same line: the command's line numbers stay its own.
func TestDebugTrapKeepsLineNumbers(t *testing.T) {
	onEveryLoopPath(t, func(path string) {
		f := newFixture(t, Config{})
		f.expect(`trap 'echo "[dbg]"' DEBUG`, "[no output]")
		f.expect("echo $LINENO", "[dbg]\n1\n")
		f.expect("trap - DEBUG", "[dbg]\n")
		f.expect("echo plain", "plain\n")
	})
}

// The command reaches eval byte for byte: read -N from the inbox drops
// only the NUL that ends it, whatever bytes it holds (bash's own quoting
// bytes \x01 and \x7f, multibyte characters, backslashes, leading and
// trailing blanks and newlines).
func TestCommandBytesReachEval(t *testing.T) {
	f := newFixture(t, Config{})
	f.expect("printf %s '\x01\x7f\\\\ é' | od -An -tx1", " 01 7f 5c 5c 20 c3 a9\n")
	f.expect("  \n\techo 'a  b\\' \n\n", "a  b\\\n")
	f.expect("cat <<'E'\n x \\\n\tE\nE", " x \\\n\tE\n")
}

// The boot line is built once per configuration and each shell's private
// directory put in its places (issue 16): for any directory, quotes,
// blanks and glob characters included, that is the line built from its
// parts for that directory.
func TestCachedBootScriptIsTheBuiltOne(t *testing.T) {
	dirs := []string{
		"/dev/shm/shellport-bash-123",
		"/tmp/it's here",
		"/tmp/''/x",
		"/tmp/a b\tc/*?[x]/$HOME/`id`",
		"/tmp/trailing/",
		"/tmp/ü/日本",
	}
	for _, legacy := range []bool{false, true} {
		for _, lib := range []string{"", "/opt/x/shellport-bash-turn.so", "/opt/it's/turn.so"} {
			for _, dir := range dirs {
				if got, want := bootScript(dir, legacy, lib), buildBootScript(dir, legacy, lib); got != want {
					t.Fatalf("dir %q, legacy %v, lib %q:\n got %q\nwant %q", dir, legacy, lib, got, want)
				}
			}
		}
	}
}
