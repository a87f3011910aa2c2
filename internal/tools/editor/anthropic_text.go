package editor

import (
	"fmt"
	"strings"
)

// The description of Anthropic's editor is the editor's own, with its
// insert in Anthropic's words and, per version, what it adds. Claude models
// know the tool itself; this text is for the formats that list it as a
// function tool.
const (
	insertLine          = "- insert: insert new_str as whole lines after line insert_line; 0 inserts before the first line, the number of the last line appends at the end."
	anthropicInsertLine = "- insert: insert insert_text (or new_str) as whole lines after line insert_line; 0 inserts before the first line, the number of the last line appends at the end."
	undoLine            = "- undo_edit: revert the last create, str_replace or insert this tool made to the file at path in this session; call it again to go further back (up to 10 edits per file). Undoing a create removes the file. It is refused, changing nothing, when the file was changed since that edit by anything else."
)

func anthropicDescription(typ string, maxChars int) string {
	d := DefaultDescription
	if typ == AnthropicTypeV1 {
		d = strings.Replace(d, insertLine, insertLine+"\n"+undoLine, 1)
	} else {
		d = strings.Replace(d, insertLine, anthropicInsertLine, 1)
	}
	if maxChars > 0 {
		d += fmt.Sprintf(" A file view shows about %d characters of numbered lines at a time.", maxChars)
	}
	return d
}

// anthropicSchema is text_editor_20250728's input as a JSON Schema.
const anthropicSchema = `{
  "type": "object",
  "properties": {
    "command": {
      "type": "string",
      "enum": ["view", "create", "str_replace", "insert"],
      "description": "The operation: view, create, str_replace or insert."
    },
    "path": {
      "type": "string",
      "description": "Absolute path of the file or directory, for example /repo/src/app.py."
    },
    "file_text": {
      "type": "string",
      "description": "create: the complete content of the new file."
    },
    "view_range": {
      "type": "array",
      "items": {"type": "integer"},
      "description": "view: [start, end], 1-based and inclusive: line numbers of a file, or entry numbers of a directory's listing; end -1 reads to the end."
    },
    "old_str": {
      "type": "string",
      "description": "str_replace: the exact text to replace; it must occur exactly once in the file."
    },
    "new_str": {
      "type": "string",
      "description": "str_replace: the replacement (leave it out to delete old_str)."
    },
    "insert_line": {
      "type": "integer",
      "description": "insert: the line after which insert_text is inserted; 0 inserts before the first line."
    },
    "insert_text": {
      "type": "string",
      "description": "insert: the lines to insert."
    }
  },
  "required": ["command", "path"],
  "additionalProperties": false
}`

// anthropicSchemaV1 is text_editor_20250124's input as a JSON Schema.
const anthropicSchemaV1 = `{
  "type": "object",
  "properties": {
    "command": {
      "type": "string",
      "enum": ["view", "create", "str_replace", "insert", "undo_edit"],
      "description": "The operation: view, create, str_replace, insert or undo_edit."
    },
    "path": {
      "type": "string",
      "description": "Absolute path of the file or directory, for example /repo/src/app.py."
    },
    "file_text": {
      "type": "string",
      "description": "create: the complete content of the new file."
    },
    "view_range": {
      "type": "array",
      "items": {"type": "integer"},
      "description": "view: [start, end], 1-based and inclusive: line numbers of a file, or entry numbers of a directory's listing; end -1 reads to the end."
    },
    "old_str": {
      "type": "string",
      "description": "str_replace: the exact text to replace; it must occur exactly once in the file."
    },
    "new_str": {
      "type": "string",
      "description": "str_replace: the replacement (leave it out to delete old_str). insert: the lines to insert."
    },
    "insert_line": {
      "type": "integer",
      "description": "insert: the line after which new_str is inserted; 0 inserts before the first line."
    }
  },
  "required": ["command", "path"],
  "additionalProperties": false
}`
