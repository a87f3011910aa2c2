package applypatch

// DefaultDescription is the model-facing description of the function tool
// (the envelope shape). A profile may replace it through the runtime config.
const DefaultDescription = `Apply a patch that adds, changes, moves or deletes text files. The whole patch is applied or none of it: if any part does not fit, no file is changed and the result says which part and why.

The patch is text in this form:

*** Begin Patch
*** Add File: docs/notes.md
+# Notes
+The first lines of the new file.
*** Update File: src/app.py
@@ class App:
@@     def run(self):
         items = load()
-        return items
+        return sorted(items)
*** Delete File: src/unused.py
*** End Patch

- Paths are relative to the session's working directory, or absolute.
- *** Add File: the new file's lines, each starting with +. The file must not exist yet; missing directories are created.
- *** Update File: one or more hunks. To also rename the file, put *** Move to: NEW_PATH right after this line; the new path must not exist.
- *** Delete File: removes the file.
- A hunk is one change with the lines around it: unchanged lines start with a space, removed lines with -, added lines with +. Copy about three unchanged lines before and after the change exactly from the file. Start each hunk with @@; when its lines could occur more than once, write the line that opens the enclosing class or function after it, one @@ line per level (@@ class App: then @@     def run(self):). Hunks of one file go in file order and must not overlap. End a hunk with *** End of File when it must be at the end of the file.

Every byte outside the changed lines is kept, including tabs, CRLF line endings and a missing final newline; added lines get the file's line endings. Binary files and files that are not valid UTF-8 are never changed.`

// OpenAIDescription describes the native shape for clients that list it as
// a function tool; OpenAI's models are trained on the tool itself.
const OpenAIDescription = `Create, update or delete one text file. operation.type is create_file (diff: the new file's lines, each starting with +), update_file (diff: hunks — optional @@ lines holding the line that opens the enclosing class or function, then unchanged lines starting with a space, removed lines with - and added lines with +) or delete_file (no diff). operation.path is relative to the session's working directory, or absolute. A change that does not fit leaves the file as it was, and the result says why.`

// envelopeSchema is the JSON Schema of the function tool's arguments.
const envelopeSchema = `{
  "type": "object",
  "properties": {
    "patch": {
      "type": "string",
      "description": "The patch, from the line *** Begin Patch to the line *** End Patch."
    }
  },
  "required": ["patch"],
  "additionalProperties": false
}`

// openAISchema is the JSON Schema of the native shape's arguments: the
// operation of an apply_patch_call, as the Responses API sends it.
const openAISchema = `{
  "type": "object",
  "properties": {
    "operation": {
      "type": "object",
      "properties": {
        "type": {
          "type": "string",
          "enum": ["create_file", "update_file", "delete_file"],
          "description": "What to do with the file."
        },
        "path": {
          "type": "string",
          "description": "The file, relative to the session's working directory or absolute."
        },
        "diff": {
          "type": "string",
          "description": "create_file: the new file's lines, each starting with +. update_file: the hunks. delete_file: none."
        }
      },
      "required": ["type", "path"],
      "additionalProperties": false
    }
  },
  "required": ["operation"],
  "additionalProperties": false
}`
