package tools

import "github.com/shellport/shellport/internal/jsonappend"

// The reply of every call carries a Presentation; writing it (and its
// parts) without encoding/json's reflection is most of what encoding a
// quick call's reply costs (issue 16). Each writes the bytes json.Marshal
// gives it, omitempty included (jsonappend's fuzz test holds them to it).

// AppendJSON implements jsonappend.Appender.
func (p Presentation) AppendJSON(dst []byte) ([]byte, bool) {
	dst = append(dst, `{"title":`...)
	dst = jsonappend.String(dst, p.Title)
	dst = append(dst, `,"kind":`...)
	dst = jsonappend.String(dst, p.Kind)
	if p.Status != "" {
		dst = append(dst, `,"status":`...)
		dst = jsonappend.String(dst, p.Status)
	}
	if len(p.Content) > 0 {
		dst = append(dst, `,"content":`...)
		dst = jsonappend.Array(dst, p.Content, ContentBlock.appendJSON)
	}
	if len(p.Locations) > 0 {
		dst = append(dst, `,"locations":`...)
		dst = jsonappend.Array(dst, p.Locations, Location.appendJSON)
	}
	var ok bool
	if p.RawInput != nil {
		dst = append(dst, `,"rawInput":`...)
		if dst, ok = jsonappend.Value(dst, p.RawInput); !ok {
			return dst, false
		}
	}
	if p.RawOutput != nil {
		dst = append(dst, `,"rawOutput":`...)
		if dst, ok = jsonappend.Value(dst, p.RawOutput); !ok {
			return dst, false
		}
	}
	if len(p.Meta) > 0 {
		dst = append(dst, `,"_meta":`...)
		if dst, ok = jsonappend.Map(dst, p.Meta); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

func (c ContentBlock) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":`...)
	dst = jsonappend.String(dst, c.Type)
	if c.Content != nil {
		dst = append(dst, `,"content":`...)
		dst = c.Content.AppendJSONTo(dst)
	}
	if c.Path != "" {
		dst = append(dst, `,"path":`...)
		dst = jsonappend.String(dst, c.Path)
	}
	if c.OldText != nil {
		dst = append(dst, `,"oldText":`...)
		dst = jsonappend.String(dst, *c.OldText)
	}
	if c.NewText != nil {
		dst = append(dst, `,"newText":`...)
		dst = jsonappend.String(dst, *c.NewText)
	}
	return append(dst, '}')
}

func (l Location) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"path":`...)
	dst = jsonappend.String(dst, l.Path)
	if l.Line != 0 {
		dst = append(dst, `,"line":`...)
		dst, _ = jsonappend.Value(dst, l.Line)
	}
	return append(dst, '}')
}

// AppendJSONTo appends the part's JSON to dst (it cannot fail).
func (t TextPart) AppendJSONTo(dst []byte) []byte {
	dst = append(dst, `{"type":`...)
	dst = jsonappend.String(dst, t.Type)
	dst = append(dst, `,"text":`...)
	dst = jsonappend.String(dst, t.Text)
	return append(dst, '}')
}
