package core

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/applypatch"
	"github.com/shellport/shellport/internal/tools/bash"
	"github.com/shellport/shellport/internal/tools/editor"
	"github.com/shellport/shellport/internal/tools/persistent"
	"github.com/shellport/shellport/internal/tools/shell"
)

// Kinds: the implementations a profile's rows can name.
const (
	kindOneshotBash    = "bash/oneshot"
	kindTaskOutput     = "bash/oneshot/output"
	kindTaskKill       = "bash/oneshot/kill"
	kindPersistentBash = "bash/persistent"
	kindEditor         = "editor"
	kindApplyPatch     = "apply_patch"
	kindTest           = "test"

	// The vendors' own tools (profiles anthropic and openai).
	kindAnthropicBash   = "bash/anthropic"
	kindAnthropicEditor = "editor/anthropic"
	kindShell           = "shell"
	kindApplyPatchOAI   = "apply_patch/openai"
)

// kind is an implementation the runtime can mount: the type of its
// config and how to build it. Adding a tool is adding a kind here (with
// its config type in the tool's package) and a row to a profile.
type kind struct {
	// config returns a fresh config of the tool's own type holding the
	// tool's defaults; the profile's defaults and the client's config are
	// decoded over it.
	config func() tools.Config
	// build makes the tool from its checked config. Tools that share
	// state get it through b.
	build func(b *builder, tool string, cfg tools.Config) (tools.Tool, error)
}

var catalog = map[string]kind{
	kindOneshotBash: {
		config: func() tools.Config { c := bash.DefaultConfig(); return &c },
		build: func(b *builder, tool string, _ tools.Config) (tools.Tool, error) {
			set, err := b.oneshot(tool)
			return pick(set, 0, err)
		},
	},
	kindTaskOutput: {
		config: commonConfig,
		build: func(b *builder, tool string, _ tools.Config) (tools.Tool, error) {
			set, err := b.oneshot(tool)
			return pick(set, 1, err)
		},
	},
	kindTaskKill: {
		config: commonConfig,
		build: func(b *builder, tool string, _ tools.Config) (tools.Tool, error) {
			set, err := b.oneshot(tool)
			return pick(set, 2, err)
		},
	},
	kindPersistentBash: {
		config: func() tools.Config { c := persistent.DefaultConfig(); return &c },
		build: func(b *builder, tool string, c tools.Config) (tools.Tool, error) {
			cfg := *c.(*persistent.Config)
			if err := b.spawnHelper(tool, &cfg.SpawnHelper); err != nil {
				return nil, err
			}
			return persistent.New(b.host, cfg), nil
		},
	},
	kindEditor: {
		config: func() tools.Config { c := editor.DefaultConfig(); return &c },
		build: func(b *builder, _ string, c tools.Config) (tools.Tool, error) {
			return editor.New(b.host, *c.(*editor.Config)), nil
		},
	},
	kindApplyPatch: {
		config: commonConfig,
		build: func(b *builder, _ string, c tools.Config) (tools.Tool, error) {
			return applypatch.New(b.host, *c.(*applypatch.Config)), nil
		},
	},
	kindAnthropicBash: {
		config: func() tools.Config { c := persistent.DefaultAnthropicConfig(); return &c },
		build: func(b *builder, tool string, c tools.Config) (tools.Tool, error) {
			cfg := *c.(*persistent.AnthropicConfig)
			if err := b.spawnHelper(tool, &cfg.SpawnHelper); err != nil {
				return nil, err
			}
			return persistent.NewAnthropic(b.host, cfg), nil
		},
	},
	kindAnthropicEditor: {
		config: func() tools.Config { c := editor.DefaultAnthropicConfig(); return &c },
		build: func(b *builder, _ string, c tools.Config) (tools.Tool, error) {
			return editor.NewAnthropic(b.host, *c.(*editor.AnthropicConfig)), nil
		},
	},
	kindShell: {
		config: func() tools.Config { c := shell.DefaultConfig(); return &c },
		build: func(b *builder, tool string, c tools.Config) (tools.Tool, error) {
			cfg := *c.(*shell.Config)
			if err := b.spawnHelper(tool, &cfg.SpawnHelper); err != nil {
				return nil, err
			}
			return shell.New(b.host, cfg), nil
		},
	},
	kindApplyPatchOAI: {
		config: func() tools.Config { return &applypatch.OpenAIConfig{} },
		build: func(b *builder, _ string, c tools.Config) (tools.Tool, error) {
			return applypatch.NewOpenAI(b.host, applypatch.Config{Common: c.(*applypatch.OpenAIConfig).Common}), nil
		},
	},
	kindTest: {
		config: commonConfig,
		build: func(b *builder, tool string, _ tools.Config) (tools.Tool, error) {
			return newTestTool(b.host, tool)
		},
	},
}

func commonConfig() tools.Config { return &tools.CommonConfig{} }

func pick(set []tools.Tool, i int, err error) (tools.Tool, error) {
	if err != nil {
		return nil, err
	}
	return set[i], nil
}

// builder builds the tools of one runtime.
type builder struct {
	host    tools.Host
	opts    Options
	configs map[string]tools.Config // the mounted tools' configs, by canonical name

	oneshotSet []tools.Tool // bash, bash_output and bash_kill: one executor
}

// oneshot returns the one-shot bash and its two task tools, built once
// from the config of the profile's "bash", whichever of them asks first.
func (b *builder) oneshot(asking string) ([]tools.Tool, error) {
	if b.oneshotSet != nil {
		return b.oneshotSet, nil
	}
	c, ok := b.configs[bash.NameBash].(*bash.Config)
	if !ok {
		return nil, fmt.Errorf("tool %q needs the one-shot bash in its profile", asking)
	}
	cfg := *c
	if err := b.spawnHelper(bash.NameBash, &cfg.SpawnHelper); err != nil {
		return nil, err
	}
	b.oneshotSet = bash.New(b.host, cfg)
	return b.oneshotSet, nil
}

// spawnHelper fills a spawning tool's spawnHelper setting with the
// carrier's default (Options.SpawnHelper) when the config names none, and
// checks it: a helper that cannot run is reported now, by name, and never
// replaced by direct spawning; on Linux no helper at all is an error too.
func (b *builder) spawnHelper(tool string, path *string) error {
	origin := "tools." + tool + ".spawnHelper"
	if *path == "" {
		*path, origin = b.opts.SpawnHelper, "SHELLPORT_SPAWN_HELPER, or the helper shipped beside shellport"
	}
	if *path == "" {
		if !spawnhelper.Required() {
			return nil // direct spawning, where the platform allows it
		}
		// Never unsupervised: without the helper nothing kills what
		// commands leave behind.
		if b.opts.SpawnHelperNotFound != nil {
			return b.opts.SpawnHelperNotFound
		}
		return spawnhelper.NotFound("", "no carrier named a directory")
	}
	return checkSpawnHelper(*path, origin)
}

// checkSpawnHelper fails unless path is an executable file.
func checkSpawnHelper(path, origin string) error {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("spawn helper %q (from %s) does not exist", path, origin)
	case err != nil:
		return fmt.Errorf("spawn helper %q (from %s): %w", path, origin, err)
	case !info.Mode().IsRegular():
		return fmt.Errorf("spawn helper %q (from %s) is not a regular file", path, origin)
	case info.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("spawn helper %q (from %s) is not executable (chmod +x it, or point the setting elsewhere)", path, origin)
	}
	return nil
}
