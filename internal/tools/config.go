package tools

// Config is the configuration of one tool, decoded from the runtime config's
// "tools" object (for example {"tools": {"bash": {"timeoutMs": 60000}}}).
// A zero field means "use the tool's default". Each tool documents which
// fields it reads; the runtime rejects keys that no field names.
type Config struct {
	// Name exposes the tool under another name (benchmark reproduction).
	Name string `json:"name,omitempty"`
	// Description replaces the model-facing description.
	Description string `json:"description,omitempty"`
	// TimeoutMs is the default timeout of one call, in milliseconds.
	TimeoutMs int `json:"timeoutMs,omitempty"`
	// MaxTimeoutMs caps the timeout a call may ask for.
	MaxTimeoutMs int `json:"maxTimeoutMs,omitempty"`
	// MaxOutputChars bounds the text returned to the model.
	MaxOutputChars int `json:"maxOutputChars,omitempty"`
	// MaxTasks bounds concurrent background tasks (one-shot bash).
	MaxTasks int `json:"maxTasks,omitempty"`
	// MaxLogBytes bounds the in-memory output buffer of one background task.
	MaxLogBytes int `json:"maxLogBytes,omitempty"`
	// Shell is the bash executable to run; default "bash" from PATH.
	Shell string `json:"shell,omitempty"`
	// SpawnHelper forces shells to start through the spawn helper at this
	// path (persistent bash); empty means the platform default.
	SpawnHelper string `json:"spawnHelper,omitempty"`
}

// OrDefault returns v when it is positive and def otherwise.
func OrDefault(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}
