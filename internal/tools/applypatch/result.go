package applypatch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shellport/shellport/internal/patch"
	"github.com/shellport/shellport/internal/tools"
)

// Bounds on a result's text: a patch may touch thousands of files.
const (
	maxListed = 40
	maxNotes  = 10
)

// completed is the result of an applied patch: one sentence for one file,
// a list for several, then notes on anything the model should check.
func completed(res *patch.Result) *tools.Result {
	var b strings.Builder
	if len(res.Files) == 1 {
		s := describe(res.Files[0])
		b.WriteString(strings.ToUpper(s[:1]) + s[1:] + ".")
	} else {
		fmt.Fprintf(&b, "Applied the patch to %d files:", len(res.Files))
		for i, ch := range res.Files {
			if i == maxListed {
				fmt.Fprintf(&b, "\n- … and %d more", len(res.Files)-maxListed)
				break
			}
			b.WriteString("\n- " + describe(ch))
		}
	}
	notes := notesOf(res.Files)
	for i, n := range notes {
		if i == maxNotes {
			fmt.Fprintf(&b, "\nNote: %d more notes left out.", len(notes)-maxNotes)
			break
		}
		b.WriteString("\nNote: " + n)
	}
	files := make([]map[string]any, len(res.Files))
	for i, ch := range res.Files {
		files[i] = fact(ch)
	}
	return &tools.Result{Text: b.String(), Structured: map[string]any{"status": "completed", "files": files}}
}

// describe says in a few words what one file section did.
func describe(ch patch.Change) string {
	switch {
	case ch.Op == patch.Add:
		return fmt.Sprintf("created %s (%d %s)", ch.Path, ch.Lines, plural(ch.Lines, "line", "lines"))
	case ch.Op == patch.Delete && ch.Real != "":
		return fmt.Sprintf("deleted the symbolic link %s (its target %s was left alone)", ch.Path, ch.Real)
	case ch.Op == patch.Delete:
		return "deleted " + ch.Path
	case ch.MoveTo != "" && len(ch.Hunks) == 0:
		return fmt.Sprintf("moved %s to %s", ch.Path, ch.MoveTo)
	case ch.MoveTo != "":
		return fmt.Sprintf("moved %s to %s and changed it: %s", ch.Path, ch.MoveTo, hunkSummary(ch))
	}
	return fmt.Sprintf("updated %s: %s", ch.Path, hunkSummary(ch))
}

// hunkSummary names where the hunks went and the lines they added and
// removed: "2 hunks at lines 12 and 40, +3 -1 lines".
func hunkSummary(ch patch.Change) string {
	if ch.Same {
		return "its hunks leave the text as it was"
	}
	lines := make([]string, 0, len(ch.Hunks))
	for i, h := range ch.Hunks {
		if i == 5 {
			lines = append(lines, "…")
			break
		}
		lines = append(lines, strconv.Itoa(h.Line))
	}
	at := "line " + lines[0]
	if len(lines) > 1 {
		at = "lines " + strings.Join(lines[:len(lines)-1], ", ") + " and " + lines[len(lines)-1]
	}
	return fmt.Sprintf("%d %s at %s, +%d -%d lines", len(ch.Hunks), plural(len(ch.Hunks), "hunk", "hunks"), at, ch.Added, ch.Removed)
}

// notesOf lists what the model should look at: hunks placed by a loose
// comparison, and changes that went through a symbolic link.
func notesOf(files []patch.Change) []string {
	var notes []string
	for _, ch := range files {
		if ch.Op == patch.Update && ch.Real != "" {
			notes = append(notes, fmt.Sprintf("%s is a symbolic link; the change went to %s and the link was kept.", ch.Path, ch.Real))
		}
		byMatch := map[patch.Match][]string{}
		for i, h := range ch.Hunks {
			if h.Match != patch.Exact {
				byMatch[h.Match] = append(byMatch[h.Match], strconv.Itoa(i+1))
			}
		}
		for m := patch.IgnoreTrailingSpace; m <= patch.IgnorePunctuation; m++ {
			if hs := byMatch[m]; len(hs) > 0 {
				notes = append(notes, fmt.Sprintf("in %s, %s %s matched %s; check the changed lines.", finalPath(ch), plural(len(hs), "hunk", "hunks"), strings.Join(hs, ", "), m))
			}
		}
	}
	return notes
}

// fact is the structured record of one file section.
func fact(ch patch.Change) map[string]any {
	f := map[string]any{"path": ch.Path, "op": ch.Op.String()}
	switch ch.Op {
	case patch.Add:
		f["line"], f["lines"] = 1, ch.Lines
	case patch.Update:
		if ch.MoveTo != "" {
			f["op"], f["to"] = "move", ch.MoveTo
		}
		if len(ch.Hunks) > 0 {
			f["line"], f["added"], f["removed"] = ch.Hunks[0].Line, ch.Added, ch.Removed
		}
	}
	return f
}

func finalPath(ch patch.Change) string {
	if ch.MoveTo != "" {
		return ch.MoveTo
	}
	return ch.Path
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
