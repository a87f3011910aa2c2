package editor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"unicode/utf8"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/fileio"
)

// snippetContext is the number of unchanged lines shown on each side of an
// edit.
const snippetContext = 4

// minSnippet is the smallest budget worth spending on a snippet.
const minSnippet = 100

func (t *tool) strReplace(ctx context.Context, session, path, oldStr, newStr string) (*tools.Result, error) {
	return t.modify(ctx, session, path, func(data []byte, lines func(int) int) (change, error) {
		return planReplaceLines(data, oldStr, newStr, path, lines)
	}, func(c change, data []byte) string {
		return fmt.Sprintf("Replaced the text at line %d of %s.", c.startLine, path)
	})
}

func (t *tool) insert(ctx context.Context, session, path string, after int, text string) (*tools.Result, error) {
	return t.modify(ctx, session, path, func(data []byte, _ func(int) int) (change, error) {
		return planInsert(data, after, text, path)
	}, func(c change, data []byte) string {
		n := countLines(bytes.TrimPrefix(c.text, fileEOL(data)))
		where := fmt.Sprintf("after line %d of %s", after, path)
		if after == 0 {
			where = "at the top of " + path
		}
		return fmt.Sprintf("Inserted %d %s %s.", n, plural(n, "line", "lines"), where)
	})
}

// testOnlyBeforeSave, when set by a test, runs after an edit has been
// planned, just before it is saved (and so before the save's last check
// that the file is still the one read). testOnlyAfterRead runs once the
// file is read or mapped, before the plan.
var testOnlyBeforeSave, testOnlyAfterRead func(real string)

// modify runs one edit under the file's lock: load and check the file, plan
// the change, then save head, new text and tail (see fileio.Locked.Save),
// straight from the loaded content, so a large file is never copied in
// memory. The lock keeps every other edit or patch of the same file in
// this process (any session, tool or runtime) and in any other shellport
// process waiting until this one is on disk; a program that takes no lock
// and changes the file meanwhile makes the edit fail instead of being
// overwritten. A tool with undo_edit remembers the edit for the session
// ("" remembers nothing).
//
// A large file is mapped rather than read (fileio.MapForChange) unless the
// history keeps its content: a fresh process then neither faults in nor
// zeroes as much heap as the file, nor copies it (issue 16). A program
// that cuts the file short while it is mapped makes reading the lost
// pages fault; this goroutine and the text check's turn that into a
// refusal (fileio.Locked.CatchFault). When Save cannot vouch for the
// mapping (fileio.ErrReadAgain: a change time too recent, or a file that
// must be written in place after all), the file is read and the edit
// planned again.
func (t *tool) modify(ctx context.Context, session, path string, plan planFunc, summary func(change, []byte) string) (_ *tools.Result, err error) {
	real, err := resolve(path)
	if err != nil {
		return nil, err
	}
	lf, release, err := fileio.OpenLocked(ctx, real, real)
	if err != nil {
		if errors.Is(err, errIsDir) {
			return nil, fmt.Errorf("%s is a directory; only view works on directories", path)
		}
		return nil, err
	}
	defer release()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer lf.CatchFault(&err, path)
	load := lf.MapForChange
	if t.undo != nil && session != "" {
		load = lf.ReadForChange // the history keeps it
	}
	data, err := load(path, t.shell)
	if err != nil {
		return nil, err
	}
	if testOnlyAfterRead != nil {
		testOnlyAfterRead(real)
	}
	c, err := checkAndPlan(lf, path, t.shell, data, plan)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if testOnlyBeforeSave != nil {
		testOnlyBeforeSave(real)
	}
	how, err := lf.Save(data, fileio.Change{Start: c.start, End: c.end, Text: c.text})
	if errors.Is(err, fileio.ErrReadAgain) {
		if data, err = lf.ReadForChange(path, t.shell); err != nil {
			return nil, err
		}
		if c, err = checkAndPlan(lf, path, t.shell, data, plan); err != nil {
			return nil, err
		}
		how, err = lf.Save(data, fileio.Change{Start: c.start, End: c.end, Text: c.text})
	}
	if err != nil {
		name := path
		if real != path {
			name = fmt.Sprintf("%s (reached through %s)", real, path)
		}
		if errors.Is(err, fileio.ErrChanged) {
			return nil, fmt.Errorf("%s changed on disk after this edit read it (%v); the edit was not made, so that change is kept. View the file again and redo the edit", name, err)
		}
		return nil, fmt.Errorf("cannot write %s: %s; the file was left unchanged", name, osReason(err))
	}
	t.undo.recordEdit(session, real, data, c)
	head := summary(c, data)
	note := ""
	if li, err := os.Lstat(path); err == nil && li.Mode()&os.ModeSymlink != 0 {
		note = fmt.Sprintf("\n[%s is a symbolic link; the edit went to %s and the link was kept]", path, real)
	}
	if how.InPlace {
		note += "\n[written in place, since " + how.Why + "]"
	}
	snip, last := t.snippet(data, c, t.maxOut-noteReserve-utf8.RuneCountInString(head)-utf8.RuneCountInString(note))
	var b strings.Builder
	b.WriteString(head)
	b.WriteString(snip)
	b.WriteString(note)
	return &tools.Result{
		Text:       b.String(),
		Structured: map[string]any{"path": path, "line": c.firstLine, "lastLine": last, "inPlace": how.InPlace},
	}, nil
}

// parallelCheckMin is the size from which checkAndPlan checks the text on
// a second goroutine while the plan searches it.
const parallelCheckMin = 1 << 20

// planFunc plans an edit of data; lines gives the line holding an offset
// of data, as lineOf does.
type planFunc func(data []byte, lines func(off int) int) (change, error)

// checkAndPlan checks that data is text that may be edited
// (fileio.CheckText) and plans the change; a refusal of the text comes
// first. On a large file the two passes run side by side, the check on a
// goroutine of its own: both only read data, and the check opens no
// file, so it needs none of the sandbox's confinement of this thread. Of
// a 35 MB edit that is about 8 ms (issue 16); the check also marks the
// lines it passes, so the plan finds the line of its match without
// counting (see lineMarks). data may be lf's mapping: the check's
// goroutine catches a fault in it as the caller's does.
func checkAndPlan(lf *fileio.Locked, path, shell string, data []byte, plan planFunc) (change, error) {
	if len(data) < parallelCheckMin {
		if err := fileio.CheckText(path, shell, data); err != nil {
			return change{}, err
		}
		return plan(data, func(off int) int { return lineOf(data, off) })
	}
	checked := make(chan error, 1)
	marks := newLineMarks()
	go func() { checked <- checkMarking(lf, path, shell, data, marks) }()
	defer func() {
		if checked != nil {
			<-checked // the plan panicked (a fault in the mapping): the check must be done with it before the release unmaps it
		}
	}()
	c, err := plan(data, func(off int) int { return marks.lineOf(data, off) })
	cerr := <-checked
	checked = nil
	if cerr != nil {
		return change{}, cerr
	}
	return c, err
}

// resolve returns the symlink-resolved path, or the not-found error.
func resolve(path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", statErr(path, err)
	}
	return real, nil
}

// snippet numbers the edited region of the new file with snippetContext
// lines around it, within the output budget, built from the old bytes and
// the change without assembling the new file. It also returns the last
// line the change touched.
func (t *tool) snippet(data []byte, c change, budget int) (string, int) {
	startLine := c.startLine
	cs := bytes.LastIndexByte(data[:c.start], '\n') + 1
	back := 0
	for ; back < snippetContext && cs > 0; back++ {
		cs = bytes.LastIndexByte(data[:cs-1], '\n') + 1
	}
	ce := c.end
	if len(c.text) == 0 || c.text[len(c.text)-1] != '\n' {
		ce = lineEnd(data, ce) // finish the line the change ends in
	}
	for k := 0; k < snippetContext && ce < len(data); k++ {
		ce = lineEnd(data, ce)
	}
	head := data[cs:c.start]
	if cs == 0 && c.start >= len(bom) && bytes.HasPrefix(data, bom) {
		head = data[len(bom):c.start]
	}
	text := make([]byte, 0, len(head)+len(c.text)+ce-c.end)
	text = append(append(append(text, head...), c.text...), data[c.end:ce]...)

	lastChanged := startLine + bytes.Count(bytes.TrimSuffix(c.text, nl), nl)
	if budget < minSnippet {
		return fmt.Sprintf(" [no room for a snippet within the output limit; view_range [%d, %d] shows the edited lines]", startLine, lastChanged), lastChanged
	}
	w := &numberer{buf: make([]byte, 0, min(len(text), budget)+256), budget: budget, shell: t.shell}
	first := startLine - back
	stop := w.numberText(text, first)
	var b strings.Builder
	if w.first != 0 {
		fmt.Fprintf(&b, " Lines %d-%d now read:\n", w.first, w.last)
	}
	b.Write(bytes.TrimSuffix(w.buf, nl))
	notes := w.notes()
	if stop != 0 {
		notes = append([]string{fmt.Sprintf("[snippet cut at the output limit; view_range [%d, %d] shows the rest of the edited lines]", stop, max(stop, lastChanged))}, notes...)
	}
	for _, n := range notes {
		b.WriteString("\n" + n)
	}
	return b.String(), lastChanged
}

// lineEnd returns the offset just past the newline that ends the line
// holding off, or len(data).
func lineEnd(data []byte, off int) int {
	if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(data)
}
