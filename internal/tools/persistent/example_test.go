package persistent_test

import (
	"context"
	"fmt"
	"os"

	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/persistent"
)

func Example() {
	// On Linux every shell runs under shellport-spawn-helper; the runtime
	// finds it beside the library or the executable.
	tool := persistent.New(tools.Host{SpillDir: os.TempDir()}, persistent.Config{SpawnHelper: spawnHelperPath})
	defer tool.(tools.Closer).Close()

	session := tools.Session{ID: "demo", Key: "demo#1", Cwd: os.TempDir()}
	for _, command := range []string{
		`greeting=hello; cd /`,
		`echo "$greeting from $PWD"`,
		`echo "no newline"; false`,
	} {
		call := &tools.Call{ID: "1", Session: session, Arguments: []byte(fmt.Sprintf(`{"command": %q}`, command))}
		res, err := tool.Call(context.Background(), call)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%q\n", res.Text)
	}
	// Output:
	// "[no output]"
	// "hello from /\n"
	// "no newline\n[exit code: 1]"
}

// spawnHelperPath is the spawn helper for the example, which gets no
// *testing.T.
var spawnHelperPath = func() string {
	p, err := testkit.BuildSpawnHelper()
	if err != nil {
		panic(err)
	}
	return p
}()
