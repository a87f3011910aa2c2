// Package testkit holds helpers for shellport's own tests: nothing outside
// a _test.go file imports it.
package testkit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
)

// recipeFile is the one native build recipe, from the module root: the
// helper's sources and flags come from it, as they do for make native, the
// wheels and GoReleaser (docs/PACKAGING.md).
const recipeFile = "scripts/build-wheels/recipe.json"

// helperRecipe is the part of the recipe a test build of the helper and
// the turn builtin uses.
type helperRecipe struct {
	Helper struct {
		Sources      string   `json:"sources"`
		CFlags       []string `json:"cflags"`
		LinuxLDFlags []string `json:"linux_ldflags"`
	} `json:"helper"`
	BashTurn struct {
		Sources string   `json:"sources"`
		CFlags  []string `json:"cflags"`
	} `json:"bash_turn"`
}

// readRecipe reads the helper's part of the recipe under root.
func readRecipe(root string) (helperRecipe, error) {
	var r helperRecipe
	b, err := os.ReadFile(filepath.Join(root, recipeFile))
	if err != nil {
		return r, fmt.Errorf("read the build recipe: %w", err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("parse %s: %w", recipeFile, err)
	}
	if r.Helper.Sources == "" || len(r.Helper.CFlags) == 0 {
		return r, fmt.Errorf("%s has no helper sources or cflags", recipeFile)
	}
	if r.BashTurn.Sources == "" || len(r.BashTurn.CFlags) == 0 {
		return r, fmt.Errorf("%s has no bash_turn sources or cflags", recipeFile)
	}
	return r, nil
}

var built struct {
	once sync.Once
	path string
	err  error
}

// SpawnHelper returns the path of a shellport-spawn-helper compiled from
// this tree, building it on first use. It fails the test when there is no
// C compiler.
func SpawnHelper(t testing.TB) string {
	t.Helper()
	path, err := BuildSpawnHelper()
	if err != nil {
		t.Fatalf("build the spawn helper: %v", err)
	}
	return path
}

// BuildSpawnHelper compiles the spawn helper once per test binary, with the
// flags of a release build from the recipe (static on Linux, warnings as
// errors; not stripped, so a crash has symbols), into a
// directory named after a hash of its sources and flags under the system's
// temporary directory, so test binaries that run at the same time share
// one build and a changed source never runs stale. On Linux the bash turn
// builtin is built beside it, as the wheels ship it, so every persistent
// shell a test starts loads it (see persistent.TurnLibName). $CC picks the
// compiler (default cc).
func BuildSpawnHelper() (string, error) {
	built.once.Do(func() { built.path, built.err = build() })
	return built.path, built.err
}

func build() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	recipe, err := readRecipe(root)
	if err != nil {
		return "", err
	}
	srcDir := filepath.Join(root, recipe.Helper.Sources)
	sources, _ := filepath.Glob(filepath.Join(srcDir, "*.c"))
	headers, _ := filepath.Glob(filepath.Join(srcDir, "*.h"))
	if len(sources) == 0 {
		return "", fmt.Errorf("no C sources in %s", srcDir)
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	args := append([]string{}, recipe.Helper.CFlags...)
	if runtime.GOOS == "linux" {
		args = append(args, recipe.Helper.LinuxLDFlags...)
	}
	turnDir := filepath.Join(root, recipe.BashTurn.Sources)
	turnSources, _ := filepath.Glob(filepath.Join(turnDir, "*.c"))
	if runtime.GOOS == "linux" && len(turnSources) == 0 {
		return "", fmt.Errorf("no C sources in %s", turnDir)
	}
	h := sha256.New()
	fmt.Fprintln(h, cc, strings.Join(args, " "))
	fmt.Fprintln(h, strings.Join(recipe.BashTurn.CFlags, " "))
	all := append(append(append([]string{}, sources...), headers...), turnSources...)
	sort.Strings(all)
	for _, f := range all {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintln(h, filepath.Base(f), len(b))
		h.Write(b)
	}
	dir := filepath.Join(os.TempDir(), "shellport-test-helper-"+hex.EncodeToString(h.Sum(nil))[:16])
	out := filepath.Join(dir, "shellport-spawn-helper")
	if fi, err := os.Stat(out); err == nil && fi.Mode().IsRegular() {
		return out, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// The builtin first: the helper's presence says the directory is
	// complete.
	if runtime.GOOS == "linux" {
		if err := compile(cc, recipe.BashTurn.CFlags, turnSources, filepath.Join(dir, "shellport-bash-turn.so")); err != nil {
			return "", err
		}
	}
	if err := compile(cc, args, sources, out); err != nil {
		return "", err
	}
	return out, nil
}

// compile builds sources into out with cc and flags, through a temporary
// file in out's directory, so a build running at the same time never sees
// half a file.
func compile(cc string, flags, sources []string, out string) error {
	tmp, err := os.CreateTemp(filepath.Dir(out), "building-")
	if err != nil {
		return err
	}
	_ = tmp.Close()
	defer os.Remove(tmp.Name())
	cmd := exec.Command(cc, append(append(append([]string{}, flags...), "-o", tmp.Name()), sources...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", cc, strings.Join(cmd.Args[1:], " "), err, b)
	}
	if err := os.Chmod(tmp.Name(), 0o755); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}

// moduleRoot walks up from the working directory (a test's package
// directory) to the directory holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}
