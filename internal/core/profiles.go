package core

import (
	"github.com/shellport/shellport/internal/tools/editor"
	"github.com/shellport/shellport/internal/tools/shell"
)

// Profile names.
const (
	ProfileOneshot    = "oneshot"
	ProfilePersistent = "persistent"
	// The vendors' own tools, with the inputs their models were trained
	// on and native declarations in their tools/list formats.
	ProfileAnthropic = "anthropic"
	ProfileOpenAI    = "openai"
)

// A profile is a set of tools as rows of data: which implementation
// (kind, see catalog.go) serves each canonical tool name, with the
// defaults the profile gives it. Everything else a profile may change is
// config data. To add a profile, add an entry here; to offer a new tool in
// one, add a row (and, for a new implementation, a kind).
type profile struct {
	name string
	rows []row
}

// row is one tool of a profile.
type row struct {
	// tool is the canonical name: the key in the config's "tools" object
	// and the name the model sees unless config renames it.
	tool string
	// kind names the implementation in the catalog.
	kind string
	// defaults, when set, is a JSON object decoded over the kind's own
	// defaults before the client's config: the profile's settings for the
	// tool, read as strictly as a client's.
	defaults string
	// optIn rows are mounted only when the config names the tool
	// ({"tools": {"apply_patch": {}}}).
	optIn bool
}

// profiles lists every profile, the default first. Rows are in the order
// tools/list shows the tools.
var profiles = []profile{
	{name: ProfileOneshot, rows: []row{
		{tool: "bash", kind: kindOneshotBash},
		{tool: "bash_output", kind: kindTaskOutput},
		{tool: "bash_kill", kind: kindTaskKill},
		{tool: "str_replace_editor", kind: kindEditor},
		{tool: "apply_patch", kind: kindApplyPatch, optIn: true},
	}},
	{name: ProfilePersistent, rows: []row{
		{tool: "bash", kind: kindPersistentBash},
		{tool: "str_replace_editor", kind: kindEditor},
		{tool: "apply_patch", kind: kindApplyPatch, optIn: true},
	}},
	{name: ProfileAnthropic, rows: []row{
		{tool: "bash", kind: kindAnthropicBash},
		{tool: editor.NameAnthropic, kind: kindAnthropicEditor},
	}},
	{name: ProfileOpenAI, rows: []row{
		{tool: shell.Name, kind: kindShell},
		{tool: "apply_patch", kind: kindApplyPatchOAI},
	}},
}

// testRows are the self-test tools {"testTools": true} adds to any
// profile: for tests of the carriers, never for models.
var testRows = []row{
	{tool: "_echo", kind: kindTest},
	{tool: "_sleep", kind: kindTest},
	{tool: "_panic", kind: kindTest},
	{tool: "_notify", kind: kindTest},
}

// profileNamed returns the profile with this name.
func profileNamed(name string) (profile, bool) {
	for _, p := range profiles {
		if p.name == name {
			return p, true
		}
	}
	return profile{}, false
}

func profileNames() []string {
	names := make([]string, len(profiles))
	for i, p := range profiles {
		names[i] = p.name
	}
	return names
}

// rowsOf returns the rows a config may name in profile p: the profile's,
// then the test tools when they are on.
func rowsOf(p profile, testTools bool) []row {
	rows := append([]row(nil), p.rows...)
	if testTools {
		rows = append(rows, testRows...)
	}
	return rows
}
