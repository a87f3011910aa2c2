package core

import (
	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/bash"
	"github.com/shellport/shellport/internal/tools/editor"
	"github.com/shellport/shellport/internal/tools/persistent"
)

func newPersistentBash(host tools.Host, cfg tools.Config) tools.Tool {
	return persistent.New(host, cfg)
}

func newOneshotBash(host tools.Host, cfg tools.Config) []tools.Tool {
	return bash.New(host, cfg)
}

func newEditor(host tools.Host, cfg tools.Config) tools.Tool {
	return editor.New(host, cfg)
}
