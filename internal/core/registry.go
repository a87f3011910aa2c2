package core

import (
	"encoding/json"
	"fmt"
	"time"

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
	quick       bool // tools.Quick: a blocking in-process caller may run its calls itself
}

// registry holds the mounted tools in a stable order.
type registry struct {
	byName map[string]*mounted
	order  []*mounted
	// longest is the longest a call of any mounted tool can take under
	// the config (see Runtime.LongestCall).
	longest time.Duration
}

// testOnlyExtraTools, when set by a test, mounts more tools.
var testOnlyExtraTools func(tools.Host) []tools.Tool

// minLongestCall is what LongestCall assumes of a tool whose config does
// not bound its calls (the editor: file I/O, a lock another process holds).
const minLongestCall = time.Minute

// buildTools constructs the tools a checked config mounts, in order. The
// host's Names are filled with the names the model sees, so that every
// text naming a tool uses them.
func buildTools(cfg Config, host tools.Host, opts Options) ([]tools.Tool, error) {
	host.Names = map[string]string{}
	b := &builder{host: host, opts: opts, configs: map[string]tools.Config{}}
	for _, m := range cfg.mounted {
		host.Names[m.row.tool] = m.name
		b.configs[m.row.tool] = m.config
	}
	if _, ok := host.Names["bash"]; !ok {
		// Texts that point the model at the shell ("use bash to …") name
		// the tool that runs commands in this profile: the Responses
		// API's shell in the openai profile.
		if n, ok := host.Names["shell"]; ok {
			host.Names["bash"] = n
		}
	}
	b.host = host
	var list []tools.Tool
	for _, m := range cfg.mounted {
		t, err := catalog[m.row.kind].build(b, m.row.tool, m.config)
		if err != nil {
			return nil, err
		}
		list = append(list, t)
	}
	if testOnlyExtraTools != nil {
		list = append(list, testOnlyExtraTools(host)...)
	}
	return list, nil
}

func newRegistry(cfg Config, host tools.Host, opts Options) (*registry, error) {
	list, err := buildTools(cfg, host, opts)
	if err != nil {
		return nil, err
	}
	reg := &registry{byName: map[string]*mounted{}, longest: minLongestCall}
	for i, t := range list {
		m := &mounted{tool: t, name: t.Name(), description: t.Description(), schema: t.InputSchema()}
		if i < len(cfg.mounted) {
			mc := cfg.mounted[i]
			common := tools.CommonOf(mc.config)
			m.name = mc.name
			if common.Description != "" {
				m.description = common.Description
			}
			if b, ok := mc.config.(tools.CallBound); ok {
				reg.longest = max(reg.longest, b.LongestCall())
			}
		}
		if !json.Valid(m.schema) {
			return nil, fmt.Errorf("tool %q: input schema is not valid JSON", t.Name())
		}
		_, m.serial = t.(tools.Serial)
		_, m.quick = t.(tools.Quick)
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
