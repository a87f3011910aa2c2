package core

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The claims map (issue 18): docs/PROTOCOL.md and docs/TOOLS.md name, next
// to each claim, the tests that hold the code to it, in a comment a reader
// of the rendered page does not see:
//
//	- `bash_kill {task_id}`: SIGTERM to the task's group, … <!-- tested: TestKillTaskTree, test_killing_a_task_kills_its_grandchildren -->
//
// A name is a Go test function, a Python test function, or a transcript
// of testdata/rpc. TestDocClaims fails when a named test does not exist,
// when a bullet of a walked section names none, and when a walked section
// names none at all; docs/TESTING.md says how to keep it.

var claimDocs = []string{"../../docs/PROTOCOL.md", "../../docs/TOOLS.md"}

// claimsEnd is where the hand-written claims end: what follows is
// generated from the code and checked byte for byte by TestToolsDoc and
// TestVendorToolsDoc.
const claimsEnd = "## Exact model-facing texts"

// notWalked are the sections whose claims are not yet mapped, with why.
// The list only shrinks: a section mapped since must leave it (the test
// says so), and a new section is walked from the start.
var notWalked = map[string]string{
	"TOOLS.md: ### Cost": "numbers measured by bench/ (docs/BENCHMARKS.md), not behaviour",
}

// noClaims are headings over other sections, with no claim of their own.
var noClaims = map[string]bool{
	"PROTOCOL.md: ## Methods (client → runtime)":       true,
	"PROTOCOL.md: ## Notifications (runtime → client)": true,
}

var testedRe = regexp.MustCompile(`<!-- tested: ([^>]*?) -->`)

type claimSection struct {
	key     string
	tested  []string
	bullets []claimBullet
}

type claimBullet struct {
	line   int
	text   string
	tested bool
}

func TestDocClaims(t *testing.T) {
	known := knownTests(t)
	seenNotWalked := map[string]bool{}
	total, named := 0, map[string]bool{}
	for _, doc := range claimDocs {
		for _, sec := range readClaimSections(t, doc) {
			if why, ok := notWalked[sec.key]; ok {
				seenNotWalked[sec.key] = true
				if len(sec.tested) > 0 {
					t.Errorf("%s names tests now: take it off notWalked (%s)", sec.key, why)
				}
				continue
			}
			if len(sec.tested) == 0 && !noClaims[sec.key] {
				t.Errorf("%s: no claim of this section names a test", sec.key)
			}
			for _, b := range sec.bullets {
				if !b.tested {
					t.Errorf("%s:%d: this claim names no test (<!-- tested: … -->): %.80s", filepath.Base(doc), b.line, b.text)
				}
			}
			for _, name := range sec.tested {
				total++
				named[name] = true
				if !known[name] {
					t.Errorf("%s names %q, which is no test here (a Go or Python test function, or a testdata/rpc transcript)", sec.key, name)
				}
			}
		}
	}
	for key := range notWalked {
		if !seenNotWalked[key] {
			t.Errorf("notWalked names %s, which is no section of the docs", key)
		}
	}
	t.Logf("%d claim references to %d distinct tests; %d sections not walked yet", total, len(named), len(notWalked))
}

// readClaimSections splits a doc into its sections up to claimsEnd, with
// the tests each names and its top-level bullets.
func readClaimSections(t *testing.T, path string) []*claimSection {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	base := filepath.Base(path)
	var secs []*claimSection
	cur := &claimSection{key: base + ": (top)"}
	var bullet *claimBullet
	inFence := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if inFence {
			continue
		}
		if strings.HasPrefix(line, claimsEnd) {
			break
		}
		if strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "### ") {
			secs = append(secs, cur)
			cur, bullet = &claimSection{key: base + ": " + line}, nil
			continue
		}
		switch {
		case strings.HasPrefix(line, "- "):
			cur.bullets = append(cur.bullets, claimBullet{line: n, text: line[2:]})
			bullet = &cur.bullets[len(cur.bullets)-1]
		case strings.TrimSpace(line) == "" || !strings.HasPrefix(line, " "):
			bullet = nil
		}
		for _, m := range testedRe.FindAllStringSubmatch(line, -1) {
			if bullet != nil {
				bullet.tested = true
			}
			for _, name := range strings.Split(m[1], ",") {
				if name = strings.TrimSpace(name); name != "" {
					cur.tested = append(cur.tested, name)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return append(secs, cur)
}

// knownTests is every test function name of the repository (Go and
// Python) and every transcript file name.
func knownTests(t *testing.T) map[string]bool {
	t.Helper()
	goTest := regexp.MustCompile(`(?m)^func (Test\w+|Fuzz\w+)\(`)
	pyTest := regexp.MustCompile(`(?m)^(?:async )?def (test_\w+)\(`)
	known := map[string]bool{}
	root := "../.."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if strings.HasPrefix(name, ".") && path != root || name == "build" || name == "node_modules" || name == "dist" {
				return filepath.SkipDir
			}
			return nil
		}
		var re *regexp.Regexp
		switch {
		case strings.HasSuffix(name, "_test.go"):
			re = goTest
		case strings.HasPrefix(name, "test_") && strings.HasSuffix(name, ".py"):
			re = pyTest
		case strings.HasSuffix(name, ".jsonl") && filepath.Base(filepath.Dir(path)) == "rpc":
			known[name] = true
			return nil
		default:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllSubmatch(b, -1) {
			known[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(known) < 100 {
		names := make([]string, 0, len(known))
		for k := range known {
			names = append(names, k)
		}
		sort.Strings(names)
		t.Fatalf("found only %d tests from %s: %v", len(known), root, names)
	}
	return known
}
