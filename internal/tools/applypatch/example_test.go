package applypatch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/applypatch"
)

// The native shape takes the operation of an apply_patch_call as it is;
// the result's status is what the apply_patch_call_output needs.
func ExampleNewOpenAI() {
	dir, _ := os.MkdirTemp("", "applypatch-example")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "app.py"), []byte("def run():\n    return 1\n"), 0o644)

	tool := applypatch.NewOpenAI(tools.Host{}, applypatch.Config{})
	args, _ := json.Marshal(map[string]any{"operation": map[string]any{
		"type": "update_file", "path": "app.py", "diff": "@@ def run():\n-    return 1\n+    return 2\n",
	}})
	res, _ := tool.Call(context.Background(), &tools.Call{Session: tools.Session{Cwd: dir}, Arguments: args})
	fmt.Println(res.Structured["status"])
	fmt.Println(res.Text)
	// Output:
	// completed
	// Updated app.py: 1 hunk at line 2, +1 -1 lines.
}
