package patch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shellport/shellport/internal/tools/fileio"
)

func TestApplyMultiFile(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{
		"src/app.py":    "def run():\n\tx = 1\n\treturn x\n",
		"src/old.py":    "A = 1\nB = 2\n",
		"tmp/junk.txt":  "junk\n",
		"keep/keep.txt": "keep\n",
	})
	abs := filepath.Join(dir, "src", "app.py")
	res := mustApply(t, dir, `*** Begin Patch
*** Add File: docs/new/readme.md
+# New
+text
*** Update File: `+abs+`
@@ def run():
 	x = 1
-	return x
+	return x + 1
*** Update File: src/old.py
*** Move to: src/pkg/new.py
@@
 A = 1
-B = 2
+B = 3
*** Delete File: tmp/junk.txt
*** End Patch
`)
	wantFile(t, filepath.Join(dir, "docs/new/readme.md"), "# New\ntext\n")
	wantFile(t, abs, "def run():\n\tx = 1\n\treturn x + 1\n")
	wantFile(t, filepath.Join(dir, "src/pkg/new.py"), "A = 1\nB = 3\n")
	gone(t, filepath.Join(dir, "src/old.py"))
	gone(t, filepath.Join(dir, "tmp/junk.txt"))
	wantFile(t, filepath.Join(dir, "keep/keep.txt"), "keep\n")
	f := res.Files
	if len(f) != 4 || f[0].Op != Add || f[0].Lines != 2 || f[0].Abs != filepath.Join(dir, "docs/new/readme.md") ||
		f[1].Hunks[0].Line != 3 || f[1].Added != 1 || f[1].Removed != 1 ||
		f[2].MoveTo != "src/pkg/new.py" || f[2].AbsTo != filepath.Join(dir, "src/pkg/new.py") || f[3].Op != Delete {
		t.Fatalf("result %+v", f)
	}
}

// Issue 13: a failing section leaves every file untouched, whatever the
// sections before it would have done.
func TestApplyAllOrNothing(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"a.txt":     "one\ntwo\n",
		"b.txt":     "x\n",
		"crlf.txt":  "c1\r\nc2\r\n",
		"bin.dat":   "\x00\x01\x02",
		"latin.txt": "caf\xe9\n",
		"dir/f.txt": "f\n",
	}
	ok := "*** Update File: a.txt\n@@\n one\n-two\n+2\n*** Add File: new.txt\n+new\n*** Delete File: b.txt\n*** Update File: crlf.txt\n-c1\n+C1\n"
	for name, tc := range map[string]struct{ bad, want string }{
		"wrong context":      {"*** Update File: dir/f.txt\n-nope\n+x\n", "dir/f.txt, hunk 1"},
		"duplicated context": {"*** Update File: dir/f.txt\n@@\n-f\n+g\n@@\n-f\n+h\n", "hunk 2"},
		"add existing":       {"*** Add File: dir/f.txt\n+x\n", "dir/f.txt already exists (a file); an *** Add File: section never overwrites"},
		"delete missing":     {"*** Delete File: nope.txt\n", "nope.txt does not exist"},
		"delete directory":   {"*** Delete File: dir\n", "is a directory"},
		"update missing":     {"*** Update File: dir/nope.txt\n-x\n+y\n", "dir/nope.txt does not exist"},
		"move onto existing": {"*** Update File: dir/f.txt\n*** Move to: b2.txt\n-f\n+g\n*** Add File: b2.txt\n+x\n", "b2.txt already exists"},
		"move onto a file":   {"*** Update File: dir/f.txt\n*** Move to: a.txt\n-f\n+g\n", "cannot move dir/f.txt to a.txt: a.txt already exists (a file, changed by an earlier section of this patch); a move never overwrites"},
		"binary file":        {"*** Update File: bin.dat\n-x\n+y\n", "binary file"},
		"not UTF-8":          {"*** Update File: latin.txt\n-caf\n+cafe\n", "not valid UTF-8"},
		"file as directory":  {"*** Add File: a.txt/sub.txt\n+x\n", "a.txt"},
		"twice deleted":      {"*** Delete File: dir/f.txt\n*** Delete File: dir/f.txt\n", "an earlier section of this patch removes it"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := tree(t, files)
			applyFails(t, dir, "*** Begin Patch\n"+ok+tc.bad+"*** End Patch\n", nil, tc.want)
		})
	}
}

// Issue 13: a write that fails midway undoes the writes before it, for
// every kind of write.
func TestApplyRollbackMidway(t *testing.T) {
	text := `*** Begin Patch
*** Update File: a.txt
-a
+A
*** Add File: new/deep/n.txt
+n
*** Delete File: d.txt
*** Update File: m.txt
*** Move to: moved/m.txt
-m
+M
*** Delete File: r.txt
*** Add File: r.txt
+r2
*** Update File: z.txt
-z
+Z
*** End Patch
`
	for fail := 0; ; fail++ {
		dir := tree(t, map[string]string{"a.txt": "a\n", "d.txt": "d\n", "m.txt": "m\n", "r.txt": "r\n", "z.txt": "z\n"})
		if err := os.Chmod(filepath.Join(dir, "r.txt"), 0o600); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, dir)
		writes := 0
		testOnlyBeforeWrite = func(key string) error {
			if writes++; writes-1 == fail {
				return fmt.Errorf("injected failure")
			}
			return nil
		}
		p, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Apply(context.Background(), p, Options{Cwd: dir})
		testOnlyBeforeWrite = nil
		if err == nil {
			if fail < 6 {
				t.Fatalf("write %d did not fail", fail)
			}
			break
		}
		if !strings.Contains(err.Error(), "injected failure") || (fail > 0 && !strings.Contains(err.Error(), "restored")) {
			t.Fatalf("write %d: %v", fail, err)
		}
		unchanged(t, dir, before)
		noDebris(t, dir)
	}
}

// Issue 13: the same with a real failure — the last file's directory is
// not writable (read-only for a normal user, immutable for root).
func TestApplyRollbackRealFailure(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{"a.txt": "a\n", "locked/z.txt": "z\n"})
	if !lockDir(t, filepath.Join(dir, "locked")) {
		t.Skip("cannot make a directory refuse writes here")
	}
	applyFails(t, dir, "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Add File: b.txt\n+b\n*** Update File: locked/z.txt\n-z\n+Z\n*** End Patch\n", nil,
		"cannot write locked/z.txt", "the 2 files written before it were restored")
}

// lockDir makes dir refuse new entries: immutable for root, read-only for
// anyone else. It reports false where neither works.
func lockDir(t *testing.T, dir string) bool {
	t.Helper()
	if os.Geteuid() == 0 {
		if err := chattr(dir, true); err != nil {
			return false
		}
		t.Cleanup(func() { _ = chattr(dir, false) })
		return true
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		return false
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	return true
}

// When undoing fails too, the error says which file may hold patched
// content, and wraps ErrPartial.
func TestApplyUndoFails(t *testing.T) {
	dir := tree(t, map[string]string{"first/a.txt": "a\n", "b.txt": "b\n"})
	testOnlyBeforeWrite = func(key string) error {
		if filepath.Base(key) != "b.txt" {
			return nil
		}
		if !lockDir(t, filepath.Join(dir, "first")) {
			t.Skip("cannot make a directory refuse writes here")
		}
		return fmt.Errorf("injected failure")
	}
	defer func() { testOnlyBeforeWrite = nil }()
	_, err := apply(t, dir, "*** Begin Patch\n*** Update File: first/a.txt\n-a\n+A\n*** Update File: b.txt\n-b\n+B\n*** End Patch\n")
	if !errors.Is(err, ErrPartial) || !strings.Contains(err.Error(), "undoing the files written before it failed for first/a.txt") {
		t.Fatalf("error %v", err)
	}
	wantFile(t, filepath.Join(dir, "b.txt"), "b\n")
}

// chattr sets or clears the immutable attribute of a directory.
func chattr(path string, on bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	const fsImmutableFl = 0x10
	attr, err := ioctlGetFlags(f)
	if err != nil {
		return err
	}
	if on {
		attr |= fsImmutableFl
	} else {
		attr &^= fsImmutableFl
	}
	return ioctlSetFlags(f, attr)
}

// Issue 13: a file changed by another program after it was read is not
// overwritten; nothing is written.
func TestApplyChangedOnDisk(t *testing.T) {
	dir := tree(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	testOnlyAfterPlan = func() {
		if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("someone else\n"), 0o644); err != nil {
			t.Error(err)
		}
	}
	defer func() { testOnlyAfterPlan = nil }()
	_, err := apply(t, dir, "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-b\n+B\n*** End Patch\n")
	if !errors.Is(err, fileio.ErrChanged) || !strings.Contains(err.Error(), "b.txt changed on disk") {
		t.Fatalf("error %v", err)
	}
	wantFile(t, filepath.Join(dir, "a.txt"), "a\n")
	wantFile(t, filepath.Join(dir, "b.txt"), "someone else\n")
}

func TestApplySequentialSections(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{"a.txt": "1\n2\n3\n", "d.txt": "old\n"})
	if err := os.Chmod(filepath.Join(dir, "d.txt"), 0o700); err != nil {
		t.Fatal(err)
	}
	mustApply(t, dir, `*** Begin Patch
*** Add File: n.txt
+first
*** Update File: n.txt
 first
+second
*** Update File: a.txt
-1
+one
*** Update File: a.txt
*** Move to: b.txt
@@
 one
-2
+two
*** Update File: b.txt
@@
-3
+three
*** Delete File: d.txt
*** Add File: d.txt
+new
*** End Patch
`)
	wantFile(t, filepath.Join(dir, "n.txt"), "first\nsecond\n")
	wantFile(t, filepath.Join(dir, "b.txt"), "one\ntwo\nthree\n")
	gone(t, filepath.Join(dir, "a.txt"))
	wantFile(t, filepath.Join(dir, "d.txt"), "new\n")
	if fi, _ := os.Stat(filepath.Join(dir, "d.txt")); fi.Mode().Perm() == 0o700 {
		t.Fatal("a file deleted and added again kept the old mode")
	}
}

func TestApplyKeepsModeAndHandlesEmptyFiles(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{"run.sh": "echo a\n", "mv.sh": "echo m\n", "empty.txt": ""})
	for _, n := range []string{"run.sh", "mv.sh"} {
		if err := os.Chmod(filepath.Join(dir, n), 0o750); err != nil {
			t.Fatal(err)
		}
	}
	mustApply(t, dir, "*** Begin Patch\n*** Update File: run.sh\n-echo a\n+echo b\n*** Update File: mv.sh\n*** Move to: bin/mv.sh\n*** Update File: empty.txt\n+now\n*** Add File: blank.txt\n*** End Patch\n")
	for _, n := range []string{"run.sh", "bin/mv.sh"} {
		if fi, err := os.Stat(filepath.Join(dir, n)); err != nil || fi.Mode().Perm() != 0o750 {
			t.Fatalf("%s: mode %v, %v", n, fi.Mode(), err)
		}
	}
	wantFile(t, filepath.Join(dir, "bin/mv.sh"), "echo m\n")
	wantFile(t, filepath.Join(dir, "empty.txt"), "now\n")
	wantFile(t, filepath.Join(dir, "blank.txt"), "")
}

// A symbolic link is followed for an update (the link stays), removed
// itself for a delete, and never moved.
func TestApplySymlinks(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{"real/target.txt": "t\n", "other.txt": "o\n"})
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(filepath.Join(dir, "real/target.txt"), link); err != nil {
		t.Fatal(err)
	}
	res := mustApply(t, dir, "*** Begin Patch\n*** Update File: link.txt\n-t\n+T\n*** End Patch\n")
	wantFile(t, filepath.Join(dir, "real/target.txt"), "T\n")
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatal("the link was replaced")
	}
	if res.Files[0].Real != filepath.Join(dir, "real/target.txt") {
		t.Fatalf("Real = %q", res.Files[0].Real)
	}
	// A link to a directory above the file is not a link to the file.
	if err := os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "dirlink")); err != nil {
		t.Fatal(err)
	}
	res = mustApply(t, dir, "*** Begin Patch\n*** Update File: dirlink/target.txt\n-T\n+T2\n*** End Patch\n")
	if res.Files[0].Real != "" {
		t.Fatalf("Real = %q for a file under a linked directory", res.Files[0].Real)
	}
	applyFails(t, dir, "*** Begin Patch\n*** Update File: link.txt\n-T\n+U\n*** End Patch\n", nil, "link.txt, hunk 1")
	mustApply(t, dir, "*** Begin Patch\n*** Update File: link.txt\n-T2\n+T\n*** End Patch\n")
	applyFails(t, dir, "*** Begin Patch\n*** Update File: link.txt\n*** Move to: moved.txt\n-T\n+U\n*** End Patch\n", nil, "is a symbolic link")
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	applyFails(t, dir, "*** Begin Patch\n*** Add File: dangling\n+x\n*** End Patch\n", nil, "already exists (a symbolic link)")
	mustApply(t, dir, "*** Begin Patch\n*** Delete File: link.txt\n*** End Patch\n")
	// A delete needs no text: a binary file can be removed.
	if err := os.WriteFile(filepath.Join(dir, "bin.dat"), []byte{0, 1, 2}, 0o644); err != nil {
		t.Fatal(err)
	}
	mustApply(t, dir, "*** Begin Patch\n*** Delete File: bin.dat\n*** End Patch\n")
	gone(t, filepath.Join(dir, "bin.dat"))
	gone(t, link)
	wantFile(t, filepath.Join(dir, "real/target.txt"), "T\n")
}

// Issue 13: with a policy that confines the session to its directory,
// absolute paths outside it, .. and symbolic links that lead out are all
// refused, and the files outside stay as they were.
func TestApplyPolicyConfines(t *testing.T) {
	t.Parallel()
	outside := tree(t, map[string]string{"secret.txt": "secret\n"})
	dir := tree(t, map[string]string{"in.txt": "in\n"})
	if err := os.Symlink(outside, filepath.Join(dir, "out-dir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "out-file")); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(outside, "secret.txt")
	for name, section := range map[string]string{
		"absolute":          "*** Update File: " + secret + "\n-secret\n+pwned\n",
		"dot-dot":           "*** Update File: ../" + filepath.Base(outside) + "/secret.txt\n-secret\n+pwned\n",
		"dot-dot add":       "*** Add File: ../new.txt\n+x\n",
		"link to a file":    "*** Update File: out-file\n-secret\n+pwned\n",
		"link to a dir":     "*** Update File: out-dir/secret.txt\n-secret\n+pwned\n",
		"add through link":  "*** Add File: out-dir/new.txt\n+x\n",
		"delete via link":   "*** Delete File: out-dir/secret.txt\n",
		"move out":          "*** Update File: in.txt\n*** Move to: " + filepath.Join(outside, "moved.txt") + "\n-in\n+x\n",
		"move through link": "*** Update File: in.txt\n*** Move to: out-dir/moved.txt\n-in\n+x\n",
	} {
		t.Run(name, func(t *testing.T) {
			before := snapshot(t, outside)
			applyFails(t, dir, "*** Begin Patch\n*** Add File: ok.txt\n+ok\n"+section+"*** End Patch\n", within(dir), "outside the directories")
			unchanged(t, outside, before)
		})
	}
	// Deleting the link itself stays inside, so it is allowed.
	p, _ := Parse("*** Begin Patch\n*** Delete File: out-file\n*** End Patch\n")
	if _, err := Apply(context.Background(), p, *within(dir)); err != nil {
		t.Fatal(err)
	}
	wantFile(t, secret, "secret\n")
}

// Two calls patching one file at the same time both land: the second reads
// what the first wrote.
func TestApplyConcurrentSameFile(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range 16 {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	dir := tree(t, map[string]string{"f.txt": strings.Join(lines, "\n") + "\n"})
	var wg sync.WaitGroup
	errs := make(chan error, len(lines))
	for i := range lines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := Parse(fmt.Sprintf("*** Begin Patch\n*** Update File: f.txt\n-line %d\n+LINE %d\n*** End Patch\n", i, i))
			if err == nil {
				_, err = Apply(context.Background(), p, Options{Cwd: dir})
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := readFile(t, filepath.Join(dir, "f.txt"))
	if strings.Contains(got, "line ") || strings.Count(got, "LINE ") != len(lines) {
		t.Fatalf("lost an update:\n%s", got)
	}
}

// A large file through the file system path: read once, written once.
func TestApplyLargeFile(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for b.Len() < 24<<20 {
		fmt.Fprintf(&b, "row %d\tvalue\n", b.Len())
	}
	body := b.String()
	dir := tree(t, map[string]string{"big.tsv": "HEAD\n" + body})
	mustApply(t, dir, "*** Begin Patch\n*** Update File: big.tsv\n-HEAD\n+head\n*** End Patch\n")
	if got := readFile(t, filepath.Join(dir, "big.tsv")); got != "head\n"+body {
		t.Fatal("large file damaged")
	}
}

func TestApplyRefusals(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{"a.txt": "a\n"})
	applyFails(t, dir, "*** Begin Patch\n*** Update File: a.txt\n-a\n+b\n*** End Patch\n", &Options{}, "no session directory")
	p, _ := Parse("*** Begin Patch\n*** Update File: a.txt\n-a\n+b\n*** End Patch\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Apply(ctx, p, Options{Cwd: dir}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	wantFile(t, filepath.Join(dir, "a.txt"), "a\n")
}
