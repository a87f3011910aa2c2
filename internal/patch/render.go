package patch

import "strings"

// String renders the patch as a "*** Begin Patch" envelope that Parse reads
// back to the same patch. Lines end with CRLF when the patch's did. Every
// hunk gets an @@ line; the empty lines Parse counted as Optional are
// written without a leading space, as they were read.
func (p *Patch) String() string {
	eol := eolOf(p.CRLF)
	var b strings.Builder
	line := func(parts ...string) {
		for _, s := range parts {
			b.WriteString(s)
		}
		b.WriteString(eol)
	}
	line(beginMarker)
	for _, f := range p.Files {
		switch f.Op {
		case Add:
			line(addMarker, " ", f.Path)
			for _, l := range textLines(f.Text) {
				line("+", l)
			}
		case Delete:
			line(deleteMarker, " ", f.Path)
		case Update:
			line(updateMarker, " ", f.Path)
			if f.MoveTo != "" {
				line(moveMarker, " ", f.MoveTo)
			}
			for _, h := range f.Hunks {
				if len(h.Anchors) == 0 {
					line("@@")
				}
				for _, a := range h.Anchors {
					line("@@ ", a)
				}
				for k, l := range h.Lines {
					if l.Kind == ' ' && l.Text == "" && k >= len(h.Lines)-h.Optional {
						line()
						continue
					}
					line(string(l.Kind), l.Text)
				}
				if h.EOF {
					line(eofMarker)
				}
			}
		}
	}
	line(endMarker)
	return b.String()
}

// textLines splits an added file's text into its lines.
func textLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}
