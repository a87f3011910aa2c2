//go:build unix

package editor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/tools"
)

// Issue 5: FIFOs are refused without blocking, for view and for edits.
func TestFIFORefused(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, args := range []map[string]any{
		{"command": "view", "path": fifo},
		{"command": "str_replace", "path": fifo, "old_str": "a", "new_str": "b"},
		{"command": "insert", "path": fifo, "insert_line": 0, "new_str": "b"},
	} {
		done := make(chan *tools.Result, 1)
		go func() {
			res, _ := tl.Call(context.Background(), &tools.Call{Arguments: mustJSON(t, args)})
			done <- res
		}()
		select {
		case res := <-done:
			if res == nil || !res.IsError || !strings.Contains(res.Text, "named pipe") {
				t.Fatalf("%v on a FIFO: %+v", args["command"], res)
			}
		case <-time.After(30 * time.Second): // a bound against hanging, not a speed check
			t.Fatalf("%v blocked on a FIFO", args["command"])
		}
	}
}

// Issue 5: as root, an edit keeps the file's owner and group.
func TestEditKeepsOwner(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file another owner")
	}
	p := writeFile(t, "owned.txt", "a\n")
	if err := os.Chown(p, 4321, 8765); err != nil {
		t.Skipf("chown: %v", err)
	}
	if err := os.Chmod(p, 0o755|os.ModeSetuid); err != nil {
		t.Fatal(err)
	}
	ok(t, newTool(t, 0), replaceArgs(p, "a", "b"))
	fi, _ := os.Stat(p)
	st := fi.Sys().(*syscall.Stat_t)
	if st.Uid != 4321 || st.Gid != 8765 {
		t.Fatalf("owner %d:%d after edit, want 4321:8765", st.Uid, st.Gid)
	}
	if fi.Mode()&(os.ModePerm|os.ModeSetuid) != 0o755|os.ModeSetuid {
		t.Fatalf("mode %v after edit, want setuid 0755", fi.Mode())
	}
}

// A read-only file stays read-only: the edit is refused, not done by
// renaming over it. Root bypasses permissions, so a root run runs it again
// as nobody (issue 18: both cases, never a skip).
func TestEditReadOnlyFile(t *testing.T) {
	t.Parallel()
	if testkit.RunAsNobody(t) {
		return
	}
	p := writeFile(t, "ro.txt", "a\n")
	if err := os.Chmod(p, 0o444); err != nil {
		t.Fatal(err)
	}
	contains(t, fails(t, newTool(t, 0), replaceArgs(p, "a", "b")), "cannot write "+p+": permission denied")
	wantFile(t, p, "a\n")
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
