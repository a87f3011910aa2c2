package editor

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shellport/shellport/internal/tools"
)

// maxSubdirEntries caps the entries shown from one second-level directory,
// so one huge folder cannot crowd out the rest of the listing.
const maxSubdirEntries = 50

// noiseDirs are directories listed but never expanded: they hold installed
// dependencies or caches, rarely what a model is looking for, and can be
// huge. A directory holding pyvenv.cfg (a virtualenv) is treated the same.
var noiseDirs = map[string]bool{
	"node_modules":     true,
	"bower_components": true,
	"__pycache__":      true,
	"site-packages":    true,
}

// listing accumulates a directory view within a character budget. Its
// entry lines are numbered from 1 (the root's line is not), so that a
// view_range can select part of a listing too long for one result.
type listing struct {
	shell  string // the bash tool's name, for the note on hidden entries
	buf    []byte
	ends   []int // end offset in buf of each line, the root's first
	nums   []int // the entry number of each line after the root's
	budget int
	shown  int

	start, end int  // the entries asked for; end -1 for all
	n          int  // entries met so far, shown or not
	more       bool // an entry after end exists

	hidden      int
	full        bool     // the budget ran out
	notExpanded []string // noise directories, relative to the root
	capped      []string // "dir/ (N more)"
	unreadable  []string // "dir/: reason"
}

// header adds the root's line.
func (l *listing) header(line string) {
	l.budget -= utf8.RuneCountInString(line) + 1
	l.buf = append(append(l.buf, line...), '\n')
	l.ends = append(l.ends, len(l.buf))
}

// entry takes the next entry of the listing. It reports whether the walk
// goes on, and whether this entry was shown.
func (l *listing) entry(line string) (goOn, shown bool) {
	l.n++
	switch {
	case l.n < l.start:
		return true, false
	case l.end != -1 && l.n > l.end:
		l.more = true
		return false, false
	}
	c := utf8.RuneCountInString(line) + 1
	if c > l.budget {
		l.full = true
		return false, false
	}
	l.budget -= c
	l.buf = append(append(l.buf, line...), '\n')
	l.ends = append(l.ends, len(l.buf))
	l.nums = append(l.nums, l.n)
	l.shown++
	return true, true
}

// dropLast removes the last entry line (never the root's) and counts it
// as left out. It reports false when no entry is left.
func (l *listing) dropLast() bool {
	if len(l.ends) < 2 {
		return false
	}
	l.ends = l.ends[:len(l.ends)-1]
	l.nums = l.nums[:len(l.nums)-1]
	l.buf = l.buf[:l.ends[len(l.ends)-1]]
	l.shown--
	l.full = true
	return true
}

// render joins the lines and the notes.
func (l *listing) render() string {
	return strings.TrimSuffix(string(l.buf)+strings.Join(l.notes(), "\n"), "\n")
}

// viewDir lists root two levels deep, in-process and sorted. Names starting
// with a dot are counted, not shown; the root itself may sit inside a
// hidden directory. Symlinked directories are marked but never followed.
// rng, when given, selects entries of the listing by number.
func (t *tool) viewDir(ctx context.Context, root string, rng []int) (*tools.Result, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, pathErr("list", root, err)
	}
	l := &listing{budget: t.maxOut - noteReserve, start: 1, end: -1, shell: t.shell}
	if rng != nil {
		l.start, l.end = rng[0], rng[1]
	}
	l.header(strings.TrimSuffix(showPath(root), "/") + "/")
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if strings.HasPrefix(e.Name(), ".") {
			l.hidden++
			continue
		}
		p := filepath.Join(root, e.Name())
		line, dir := entryLine(p, e)
		goOn, shown := l.entry(line)
		if !goOn {
			break
		}
		if !dir {
			continue
		}
		if noiseDirs[e.Name()] || exists(filepath.Join(p, "pyvenv.cfg")) {
			if shown {
				l.notExpanded = append(l.notExpanded, cutName(e.Name())+"/")
			}
			continue
		}
		if !l.listChildren(p, e.Name()) {
			break
		}
	}
	if rng != nil && l.shown == 0 && !l.full {
		return nil, fmt.Errorf("view_range start %d is past the end of the listing of %s, which has %d %s", l.start, root, l.n, plural(l.n, "entry", "entries"))
	}
	// The notes name entries, so their length varies; drop entries until
	// everything fits.
	text := l.render()
	for utf8.RuneCountInString(text) > t.maxOut && l.dropLast() {
		text = l.render()
	}
	return &tools.Result{
		Text: text,
		Structured: map[string]any{
			"path": root, "directory": true, "entries": l.shown, "hidden": l.hidden, "truncated": l.full,
			"firstEntry": l.first(), "lastEntry": l.last(),
		},
	}, nil
}

func (l *listing) first() int {
	if len(l.nums) == 0 {
		return 0
	}
	return l.nums[0]
}

func (l *listing) last() int {
	if len(l.nums) == 0 {
		return 0
	}
	return l.nums[len(l.nums)-1]
}

// listChildren adds the entries of a first-level directory and reports
// whether the walk goes on.
func (l *listing) listChildren(dir, rel string) bool {
	children, err := os.ReadDir(dir)
	if err != nil {
		if l.n >= l.start {
			l.unreadable = append(l.unreadable, cutName(rel)+"/: "+osReason(err))
		}
		return true
	}
	n := 0
	for i, c := range children {
		if strings.HasPrefix(c.Name(), ".") {
			l.hidden++
			continue
		}
		if n == maxSubdirEntries {
			more := 0
			for _, rest := range children[i:] {
				if !strings.HasPrefix(rest.Name(), ".") {
					more++
				} else {
					l.hidden++
				}
			}
			if l.n >= l.start {
				l.capped = append(l.capped, cutName(rel)+"/ ("+strconv.Itoa(more)+" more)")
			}
			return true
		}
		line, _ := entryLine(filepath.Join(dir, c.Name()), c)
		if goOn, _ := l.entry(line); !goOn {
			return false
		}
		n++
	}
	return true
}

// entryLine renders one entry: directories end in "/", symlinks show their
// target. dir reports a real directory (not a link) worth expanding.
func entryLine(p string, e fs.DirEntry) (line string, dir bool) {
	shown := showPath(p)
	switch {
	case e.Type()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(p)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			shown += "/"
		}
		return shown + " -> " + showPath(target), false
	case e.IsDir():
		return shown + "/", true
	}
	return shown, false
}

// showPath quotes a path whose name would break the one-entry-per-line
// format or is not valid UTF-8.
func showPath(p string) string {
	if !utf8.ValidString(p) || strings.ContainsFunc(p, unicode.IsControl) {
		return strconv.Quote(p)
	}
	return p
}

// cutName shortens a name quoted in a note to 40 bytes.
func cutName(name string) string {
	name = showPath(name)
	if len(name) <= 40 {
		return name
	}
	cut := 40
	for cut > 0 && !runeStart(name[cut]) {
		cut--
	}
	return name[:cut] + "…"
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// notes explains everything the listing left out.
func (l *listing) notes() []string {
	var out []string
	if l.shown == 0 && !l.full && l.start == 1 {
		if l.hidden == 0 {
			out = append(out, "[empty directory]")
		} else {
			out = append(out, "[no visible entries]")
		}
	}
	if len(l.notExpanded) > 0 {
		out = append(out, "[not expanded, as dependency or cache folders: "+joinCapped(l.notExpanded, 5)+". View one by its path to list it]")
	}
	if len(l.capped) > 0 {
		out = append(out, fmt.Sprintf("[only the first %d entries of a subdirectory are shown: %s. View a subdirectory to list all of it]", maxSubdirEntries, joinCapped(l.capped, 3)))
	}
	if len(l.unreadable) > 0 {
		out = append(out, "[could not read "+joinCapped(l.unreadable, 3)+"]")
	}
	if l.hidden > 0 {
		out = append(out, fmt.Sprintf("[%d hidden %s (names starting with a dot) not shown; view one by its path, or run ls -a with %s]", l.hidden, plural(l.hidden, "entry", "entries"), l.shell))
	}
	switch next := l.last() + 1; {
	case l.full && l.shown > 0:
		out = append(out, fmt.Sprintf("[output limit reached: entries %d to %d of the listing are shown; view_range [%d, -1] lists the ones after them]", l.first(), l.last(), next))
	case l.full:
		out = append(out, fmt.Sprintf("[output limit reached before entry %d of the listing could be shown; view_range [%d, -1] starts there]", l.start, l.start))
	case l.more:
		out = append(out, fmt.Sprintf("[entries %d to %d of the listing; view_range [%d, -1] lists the ones after them]", l.first(), l.last(), next))
	case l.start > 1 || l.end != -1:
		out = append(out, fmt.Sprintf("[entries %d to %d of the listing, which has %d]", l.first(), l.last(), l.n))
	}
	return out
}

func joinCapped(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
