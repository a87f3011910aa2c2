package persistent

import (
	"strings"

	"github.com/shellport/shellport/internal/tools"
)

// shellEnv is the shell's environment: base (the session's base
// environment), minus variables that would change how bash starts or force
// colour back on, plus a terminal that never pages, colours or prompts, with
// the session's own variables over all of it.
func shellEnv(base []string, s tools.Session) []string {
	drop := map[string]bool{
		"BASH_ENV": true, "ENV": true, "SHELLOPTS": true, "BASHOPTS": true, // read at startup
		"PROMPT_COMMAND": true, "COLORTERM": true, "FORCE_COLOR": true, "CLICOLOR_FORCE": true,
	}
	set := [][2]string{
		{"TERM", "dumb"},
		{"NO_COLOR", "1"},
		{"CLICOLOR", "0"},
		{"PAGER", "cat"},
		{"GIT_PAGER", "cat"},
		{"GH_PAGER", "cat"},
		{"MANPAGER", "cat"},
		{"SYSTEMD_PAGER", "cat"},
		{"GIT_TERMINAL_PROMPT", "0"},
		// git asks an editor for commit and merge messages; true accepts the
		// default message or aborts an empty one instead of waiting.
		{"GIT_EDITOR", "true"},
		{"DEBIAN_FRONTEND", "noninteractive"},
	}
	for _, kv := range set {
		drop[kv[0]] = true
	}
	env := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if !drop[name] {
			env = append(env, kv)
		}
	}
	for _, kv := range set {
		env = append(env, kv[0]+"="+kv[1])
	}
	return s.Overlay(env)
}
