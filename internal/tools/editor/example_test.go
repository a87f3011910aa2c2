package editor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/editor"
)

func Example() {
	dir, _ := os.MkdirTemp("", "editor-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "Makefile")
	_ = os.WriteFile(path, []byte("build:\n\tgo build ./...\n"), 0o644)

	ed := editor.New(tools.Host{}, editor.Config{})
	call := func(args map[string]any) {
		raw, _ := json.Marshal(args)
		res, err := ed.Call(context.Background(), &tools.Call{Arguments: raw})
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Println(strings.ReplaceAll(res.Text, dir, "/project"))
	}
	call(map[string]any{"command": "str_replace", "path": path, "old_str": "\tgo build ./...", "new_str": "\tgo vet ./...\n\tgo build ./..."})
	call(map[string]any{"command": "view", "path": path, "view_range": []int{2, -1}})
	// Output:
	// Replaced the text at line 2 of /project/Makefile. Lines 1-3 now read:
	//      1	build:
	//      2		go vet ./...
	//      3		go build ./...
	//      2		go vet ./...
	//      3		go build ./...
	// [lines 2-3 of 3]
}
