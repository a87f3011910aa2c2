package bash_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/bash"
)

func Example() {
	// On Linux every command runs under shellport-spawn-helper; the
	// runtime finds it beside the library or the executable.
	ts := bash.New(tools.Host{SpillDir: os.TempDir()}, bash.Config{SpawnHelper: spawnHelperPath})
	defer ts[0].(tools.Closer).Close()

	res, err := ts[0].Call(context.Background(), &tools.Call{
		ID:        "call-1",
		Session:   tools.Session{ID: "s1", Key: "s1", Cwd: "/"},
		Arguments: json.RawMessage(`{"command": "echo hello; echo oops >&2; exit 3", "description": "Greet, complain and fail"}`),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text)
	fmt.Println("isError:", res.IsError, "exitCode:", res.Structured["exitCode"])
	// Output:
	// hello
	// [stderr]
	// oops
	// [exit code: 3]
	// isError: false exitCode: 3
}
