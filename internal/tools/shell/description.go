package shell

import "fmt"

// description is the model-facing description, for the formats that list
// the tool as a function (OpenAI's models know the native tool itself).
func description(c Config) string {
	return fmt.Sprintf(`Run shell commands and return, for each, what it wrote to stdout and to stderr and how it ended: its exit code, or a timeout.

action.commands is a list of commands, run one after another with bash -c in the session's working directory. Each starts a new bash process, so nothing carries over between commands: a cd, an export or a variable from one is gone in the next. A command that fails does not stop the ones after it; a command that times out does: the rest of the list does not run.

- stdin is empty: a command that waits for input reads end-of-file. Use non-interactive flags (-y, --no-pager).
- action.timeout_ms is each command's time limit in milliseconds (default %d, at most %d). At the limit the command and every process it started get SIGTERM, then SIGKILL; processes a command leaves running when it exits are stopped as well.
- action.max_output_length bounds the characters of all outputs of the call together (at most %d, the default). Short outputs are kept whole; a long one keeps its beginning and end, with a note of how many characters were left out between them.
- At most %d commands per call.`, c.TimeoutMs, c.MaxTimeoutMs, c.MaxOutputChars, c.MaxCommands)
}

// inputSchema is a shell_call's action as a JSON Schema.
const inputSchema = `{
  "type": "object",
  "properties": {
    "action": {
      "type": "object",
      "properties": {
        "commands": {
          "type": "array",
          "items": {"type": "string"},
          "description": "The commands to run, in order, each with bash -c in the session's working directory."
        },
        "timeout_ms": {
          "type": "integer",
          "description": "Each command's time limit in milliseconds."
        },
        "max_output_length": {
          "type": "integer",
          "description": "The most characters all outputs of the call may hold together."
        }
      },
      "required": ["commands"],
      "additionalProperties": false
    }
  },
  "required": ["action"],
  "additionalProperties": false
}`
