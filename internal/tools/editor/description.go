package editor

// DefaultDescription is the model-facing description of the tool. A profile
// may replace it through the runtime config.
const DefaultDescription = `View, create and edit text files. Every path must be absolute, for example /repo/src/app.py.

Commands:
- view: print a file with line numbers: each line is its number, a tab, then the line exactly as stored (tabs are real tab characters). Long output is cut on whole lines and ends with the view_range to ask for next. view_range [start, end] selects lines, 1-based and inclusive; end -1 means the last line. On a directory, view lists entries two levels deep, skipping hidden names and not expanding dependency or cache folders such as node_modules; there view_range selects entries of that listing, so a long one can be read in parts.
- create: write a new file containing file_text, creating missing parent directories. An existing path is refused.
- str_replace: replace old_str with new_str. old_str must occur exactly once in the file and match it character for character, including indentation and blank lines; copy it from view output without the line-number prefix, and add surrounding lines if it is not unique. Leave out new_str to delete old_str.
- insert: insert new_str as whole lines after line insert_line; 0 inserts before the first line, the number of the last line appends at the end.

Edits change only the text you name: every other byte stays as it was, including tabs, CRLF line endings and a missing final newline; new text gets the file's line endings. Writes are atomic (a file with several hard links, or mounted on its own, is written in place so that every name sees the edit), and an edit of a file that another program changed since the edit read it is refused rather than overwriting that change. Binary files and files that are not valid UTF-8 are never modified. After an edit, check the numbered snippet of the changed lines.`

// inputSchema is the JSON Schema of the arguments. It avoids keywords such
// as minItems that some model providers reject in strict mode; the limits
// they would state are checked in Call and written in the descriptions.
const inputSchema = `{
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
