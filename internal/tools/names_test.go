package tools_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// toolNameWord finds a tool's canonical name used as a word in a text.
var toolNameWord = regexp.MustCompile(`(^|[^A-Za-z0-9_-])(bash_output|bash_kill|str_replace_editor|apply_patch|str_replace_based_edit_tool)([^A-Za-z0-9_-]|$)`)

// Issue 11: a renamed tool must never be called by its old name, so no
// string a tool writes may spell another tool's name: texts take names
// from tools.Host.Name. The only literals holding one are the canonical
// name constants. (internal/core's TestRenamedToolsEverywhere checks the
// texts themselves, "bash" included, with every tool renamed.)
func TestNoToolNameInLiterals(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		constNames := map[*ast.BasicLit]bool{}
		ast.Inspect(file, func(n ast.Node) bool {
			if spec, ok := n.(*ast.ValueSpec); ok {
				for i, name := range spec.Names {
					if lit, ok := valueAt(spec, i).(*ast.BasicLit); ok && strings.HasPrefix(name.Name, "Name") {
						constNames[lit] = true
					}
				}
			}
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING || constNames[lit] {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			if m := toolNameWord.FindStringSubmatch(s); m != nil {
				t.Errorf("%s: a text spells the tool name %q; take it from tools.Host.Name", fset.Position(lit.Pos()), m[2])
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func valueAt(spec *ast.ValueSpec, i int) ast.Expr {
	if i < len(spec.Values) {
		return spec.Values[i]
	}
	return nil
}
