package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/tools"
)

// mounted is a tool as the client sees it: its exposed name and description
// may differ from the tool's own (config overrides).
type mounted struct {
	tool        tools.Tool
	name        string
	description string
	schema      json.RawMessage
	serial      bool
}

// registry holds the mounted tools in a stable order.
type registry struct {
	byName map[string]*mounted
	order  []*mounted
}

// testOnlyExtraTools, when set by a test, mounts more tools.
var testOnlyExtraTools func(tools.Host) []tools.Tool

// toolNames lists the canonical tool names a profile mounts, in the order
// tools/list shows them.
func toolNames(profile string, testTools bool) []string {
	var names []string
	switch profile {
	case ProfilePersistent:
		names = []string{"bash"}
	default:
		names = []string{"bash", "bash_output", "bash_kill"}
	}
	names = append(names, "str_replace_editor")
	if testTools {
		names = append(names, testToolNames...)
	}
	return names
}

// buildTools constructs the tools of cfg's profile. opts gives the default
// spawn helper (Options.SpawnHelper) and, when there is none, why.
func buildTools(cfg Config, host tools.Host, opts Options) ([]tools.Tool, error) {
	bc := cfg.Tools["bash"]
	origin := "tools.bash.spawnHelper"
	if bc.SpawnHelper == "" {
		bc.SpawnHelper, origin = opts.SpawnHelper, "SHELLPORT_SPAWN_HELPER, or the helper shipped beside shellport"
	}
	if bc.SpawnHelper == "" && spawnhelper.Required() {
		// Never unsupervised: without the helper nothing kills what
		// commands leave behind.
		if opts.SpawnHelperNotFound != nil {
			return nil, opts.SpawnHelperNotFound
		}
		return nil, spawnhelper.NotFound("", "no carrier named a directory")
	}
	if err := checkSpawnHelper(bc.SpawnHelper, origin); err != nil {
		return nil, err
	}
	var list []tools.Tool
	switch cfg.Profile {
	case ProfilePersistent:
		list = append(list, newPersistentBash(host, bc))
	default:
		list = append(list, newOneshotBash(host, bc)...)
	}
	list = append(list, newEditor(host, cfg.Tools["str_replace_editor"]))
	if cfg.TestTools {
		list = append(list, newTestTools(host)...)
	}
	if testOnlyExtraTools != nil {
		list = append(list, testOnlyExtraTools(host)...)
	}
	return list, nil
}

// checkSpawnHelper fails unless path is empty (direct spawning, where the
// platform allows it) or an executable file: a helper that cannot run is
// reported now, by name, rather than at the first command, and never
// replaced by direct spawning.
func checkSpawnHelper(path, origin string) error {
	if path == "" {
		return nil
	}
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

func newRegistry(cfg Config, host tools.Host, opts Options) (*registry, error) {
	list, err := buildTools(cfg, host, opts)
	if err != nil {
		return nil, err
	}
	reg := &registry{byName: map[string]*mounted{}}
	for _, t := range list {
		tc := cfg.Tools[t.Name()]
		m := &mounted{tool: t, name: t.Name(), description: t.Description(), schema: t.InputSchema()}
		if tc.Name != "" {
			m.name = tc.Name
		}
		if tc.Description != "" {
			m.description = tc.Description
		}
		if !json.Valid(m.schema) {
			return nil, fmt.Errorf("tool %q: input schema is not valid JSON", t.Name())
		}
		_, m.serial = t.(tools.Serial)
		reg.byName[m.name] = m
		reg.order = append(reg.order, m)
	}
	return reg, nil
}

func (r *registry) lookup(name string) *mounted { return r.byName[name] }

func (r *registry) names() []string {
	out := make([]string, len(r.order))
	for i, m := range r.order {
		out[i] = m.name
	}
	return out
}

// closeSession tells every stateful tool that a session ended.
func (r *registry) closeSession(id string) {
	for _, m := range r.order {
		if c, ok := m.tool.(tools.SessionCloser); ok {
			c.CloseSession(id)
		}
	}
}

// close shuts every tool down; the first error wins.
func (r *registry) close() error {
	var first error
	for _, m := range r.order {
		if c, ok := m.tool.(tools.Closer); ok {
			if err := c.Close(); err != nil && first == nil {
				first = fmt.Errorf("close tool %q: %w", m.tool.Name(), err)
			}
		}
	}
	return first
}
