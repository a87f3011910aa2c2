package bash_test

import (
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/bash"
)

// BenchmarkTrue is one one-shot `true` through the tool: spawn, wait, drain
// and format.
func BenchmarkTrue(b *testing.B) {
	ts := bash.New(tools.Host{SpillDir: b.TempDir()}, tools.Config{SpawnHelper: testkit.SpawnHelper(b)})
	defer ts[0].(tools.Closer).Close()
	c := &tools.Call{ID: "b", Session: tools.Session{ID: "s", Cwd: b.TempDir()},
		Arguments: json.RawMessage(`{"command":"true","description":"Do nothing"}`)}
	b.ReportAllocs()
	for b.Loop() {
		res, err := ts[0].Call(b.Context(), c)
		if err != nil || res.Text != "[no output]" {
			b.Fatalf("%v %v", res, err)
		}
	}
}

// BenchmarkExecTrue is the floor: os/exec running `bash -c true` with
// nothing else, in the same run for a ratio.
func BenchmarkExecTrue(b *testing.B) {
	path, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("no bash")
	}
	for b.Loop() {
		if err := exec.Command(path, "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
