package editor

import (
	"encoding/json"

	"github.com/shellport/shellport/internal/strictjson"
	"github.com/shellport/shellport/internal/tools"
)

// present renders a call for an ACP client: kind read for view and edit
// for the rest; titles "Read PATH", "List PATH", "Write PATH", "Edit PATH";
// a diff for create, str_replace and insert (shown before the call runs,
// so a permission prompt can show it); and the path with the first changed
// line. It reads only its inputs, so it gives the same card on replay, and
// it falls back to the generic card when the arguments cannot be read.
func present(name string, call *tools.Call, res *tools.Result) tools.Presentation {
	var p params
	if call == nil || !readArgs(call.Arguments, &p) || p.Path == "" {
		return tools.Generic(name, call, res)
	}
	if _, ok := commands[p.Command]; !ok {
		return tools.Generic(name, call, res)
	}
	pr := tools.Presentation{Kind: "edit", RawInput: call.Arguments}
	loc := tools.Location{Path: p.Path}
	switch p.Command {
	case "view":
		pr.Kind, pr.Title = "read", "Read "+p.Path
		if res != nil && !res.IsError && res.Structured["directory"] == true {
			pr.Title = "List " + p.Path
		}
		if len(p.ViewRange) > 0 && p.ViewRange[0] > 0 {
			loc.Line = p.ViewRange[0]
		}
	case "create":
		pr.Title = "Write " + p.Path
		if p.FileText != nil {
			pr.Content = []tools.ContentBlock{tools.DiffBlock(p.Path, nil, *p.FileText)}
		}
		loc.Line = 1
	case "str_replace":
		pr.Title = "Edit " + p.Path
		if p.OldStr != nil {
			pr.Content = []tools.ContentBlock{tools.DiffBlock(p.Path, p.OldStr, deref(p.NewStr))}
		}
	case "insert":
		pr.Title = "Edit " + p.Path
		empty := ""
		pr.Content = []tools.ContentBlock{tools.DiffBlock(p.Path, &empty, deref(p.NewStr))}
		if p.InsertLine != nil && *p.InsertLine >= 0 {
			loc.Line = *p.InsertLine + 1
		}
	}
	if res != nil {
		pr.Status = tools.StatusOf(res)
		if line := intFact(res.Structured, "line"); line > 0 {
			loc.Line = line
		}
		switch {
		case res.IsError:
			pr.Content = []tools.ContentBlock{tools.TextBlock(res.Text)}
		case p.Command == "view":
			pr.Content = []tools.ContentBlock{tools.TextBlock(res.Text)}
		}
	}
	pr.Locations = []tools.Location{loc}
	return pr
}

// readArgs reads a call's arguments as leniently as encoding/json does,
// in one pass when they are plain (strictjson.DecodeFast reads them as
// encoding/json would): a card is made for every call (issue 16).
func readArgs(args json.RawMessage, p *params) bool {
	return strictjson.DecodeFast(args, p) || json.Unmarshal(args, p) == nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// intFact reads a number from structured content, which holds an int when
// fresh and a float64 after a JSON round trip (replay).
func intFact(m map[string]any, key string) int {
	switch v := m[key].(type) {
	case int:
		return v
	case float64:
		return int(v)
	case json.Number:
		n, _ := v.Int64()
		return int(n)
	}
	return 0
}
