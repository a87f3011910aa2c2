package applypatch

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/shellport/shellport/internal/patch"
	"github.com/shellport/shellport/internal/tools"
)

// present renders a call for an ACP client, from the arguments alone (and
// the result when there is one), so it gives the same card before the call
// runs — a permission prompt can show the diffs — and on replay.
//
// Kind is edit, or delete or move when every section only deletes or only
// moves. The title names the file ("Write PATH", "Edit PATH", "Delete
// PATH", "Move PATH to DEST") or counts them ("Patch 3 files"). There is a
// diff block per added or updated file (an update's hunks, old and new
// side) and a location per file, with the first changed line once the
// result says where it is. A failed call shows its message instead of the
// diffs. Paths in diffs and locations are absolute, resolved against the
// session's directory.
func (t *tool) present(call *tools.Call, res *tools.Result) tools.Presentation {
	if call == nil || !json.Valid(call.Arguments) {
		return tools.Generic(t.name, call, res)
	}
	pr := tools.Presentation{Title: "Apply patch", Kind: "edit", RawInput: call.Arguments}
	if p, err := t.parse(call.Arguments); err == nil {
		lines := resultLines(res)
		pr.Title, pr.Kind = titleOf(p.Files)
		for i, f := range p.Files {
			abs := absPath(f.Path, call.Session.Cwd)
			loc := tools.Location{Path: abs}
			switch f.Op {
			case patch.Add:
				pr.Content = append(pr.Content, tools.DiffBlock(abs, nil, f.Text))
				loc.Line = 1
			case patch.Update:
				if len(f.Hunks) > 0 {
					oldText, newText := sides(f.Hunks)
					pr.Content = append(pr.Content, tools.DiffBlock(abs, &oldText, newText))
				}
				if f.MoveTo != "" {
					loc.Path = absPath(f.MoveTo, call.Session.Cwd)
				}
				if i < len(lines) && lines[i] > 0 {
					loc.Line = lines[i]
				}
			}
			pr.Locations = append(pr.Locations, loc)
		}
	}
	if res != nil {
		pr.Status = tools.StatusOf(res)
		if res.IsError {
			pr.Content = []tools.ContentBlock{tools.TextBlock(res.Text)}
		}
	}
	return pr
}

// titleOf names what the patch does and the ACP kind that fits it.
func titleOf(files []patch.File) (title, kind string) {
	kind = "edit"
	deletes, moves := 0, 0
	for _, f := range files {
		switch {
		case f.Op == patch.Delete:
			deletes++
		case f.Op == patch.Update && f.MoveTo != "" && len(f.Hunks) == 0:
			moves++
		}
	}
	switch {
	case deletes == len(files):
		kind = "delete"
	case moves == len(files):
		kind = "move"
	}
	if len(files) > 1 {
		return fmt.Sprintf("Patch %d files", len(files)), kind
	}
	f := files[0]
	switch {
	case f.Op == patch.Add:
		return "Write " + f.Path, kind
	case f.Op == patch.Delete:
		return "Delete " + f.Path, kind
	case f.MoveTo != "" && len(f.Hunks) == 0:
		return "Move " + f.Path + " to " + f.MoveTo, kind
	case f.MoveTo != "":
		return "Edit " + f.Path + " and move it to " + f.MoveTo, kind
	}
	return "Edit " + f.Path, kind
}

// sides joins the old and new sides of hunks, each line ended.
func sides(hunks []patch.Hunk) (oldText, newText string) {
	var o, n strings.Builder
	for _, h := range hunks {
		for _, l := range h.Old() {
			o.WriteString(l + "\n")
		}
		for _, l := range h.New() {
			n.WriteString(l + "\n")
		}
	}
	return o.String(), n.String()
}

// resultLines reads the first changed line of each file from a result's
// structured content, fresh or after a JSON round trip.
func resultLines(res *tools.Result) []int {
	if res == nil || res.Structured == nil {
		return nil
	}
	raw, err := json.Marshal(res.Structured["files"])
	if err != nil {
		return nil
	}
	var files []struct {
		Line int `json:"line"`
	}
	if json.Unmarshal(raw, &files) != nil {
		return nil
	}
	lines := make([]int, len(files))
	for i, f := range files {
		lines[i] = f.Line
	}
	return lines
}

// absPath resolves a patch path against the session's directory, lexically.
func absPath(path, cwd string) string {
	if filepath.IsAbs(path) || cwd == "" {
		return filepath.Clean(path)
	}
	return filepath.Join(cwd, path)
}
