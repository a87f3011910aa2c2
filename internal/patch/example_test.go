package patch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/shellport/shellport/internal/patch"
)

// A patch is parsed once and applied to a directory: relative paths
// resolve against Cwd, and every file changes or none does.
func Example() {
	dir, _ := os.MkdirTemp("", "patch-example")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "app.py"), []byte("def run():\r\n    return 1\r\n"), 0o644)

	p, err := patch.Parse(`*** Begin Patch
*** Update File: app.py
@@ def run():
-    return 1
+    return 2
*** Add File: notes.md
+# Notes
*** End Patch`)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := patch.Apply(context.Background(), p, patch.Options{Cwd: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ch := range res.Files {
		fmt.Println(ch.Op, ch.Path, ch.Added, ch.Removed)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "app.py"))
	fmt.Printf("%q\n", b)
	// Output:
	// update app.py 1 1
	// add notes.md 0 0
	// "def run():\r\n    return 2\r\n"
}

// A hunk whose lines occur twice is refused, naming the places.
func ExampleUpdateText() {
	p, _ := patch.ParseOperation("update_file", "f.txt", " b\n-c\n+C\n")
	_, _, err := patch.UpdateText("f.txt", []byte("a\nb\nc\nb\nc\n"), p.Files[0].Hunks, false)
	fmt.Println(err)
	// Output:
	// f.txt, hunk 1 (starting "b"): its unchanged and removed lines match 2 places (lines 2 and 4); add unchanged lines around the change until they match one place, or an @@ line holding the line that opens the enclosing class or function
}
