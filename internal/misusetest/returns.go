package misusetest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Returns checks, in the non-test Go files of the package in the current
// directory, that every error an exported function or method (one with
// an exported name, Unwrap aside) returns gets the package's prefix
// ("aci: ") on its way out: each return statement of such a function
// returns nil as its error, or an errors.New or fmt.Errorf call whose
// format starts with prefix, or a call of one of wrappers (the package's
// helpers that put the prefix in front, as "apiError"). A return inside a
// function literal belongs to the literal and is not checked. It also
// fails for a literal anywhere in the package that starts with prefix
// twice. It reports each fault with its file and line.
func Returns(t testing.TB, prefix string, wrappers ...string) {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	faults, err := returnFaults(dir, prefix, wrappers)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range faults {
		t.Error(f)
	}
}

// returnFaults is the work of Returns on the package in dir.
func returnFaults(dir, prefix string, wrappers []string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	type found struct {
		pos token.Pos
		msg string
	}
	var all []found
	fault := func(n ast.Node, format string, args ...any) {
		p := fset.Position(n.Pos())
		all = append(all, found{n.Pos(), fmt.Sprintf("%s:%d: %s", filepath.Base(p.Filename), p.Line, fmt.Sprintf(format, args...))})
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if s, ok := errorLiteral(n); ok && strings.HasPrefix(s, prefix+prefix) {
				fault(n, "error literal %q starts with %q twice", s, prefix)
			}
			return true
		})
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || !fd.Name.IsExported() || fd.Name.Name == "Unwrap" || !returnsError(fd.Type) {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if _, ok := n.(*ast.FuncLit); ok {
					return false
				}
				r, ok := n.(*ast.ReturnStmt)
				if !ok || len(r.Results) == 0 {
					return true
				}
				x := r.Results[len(r.Results)-1]
				if id, ok := x.(*ast.Ident); ok && id.Name == "nil" {
					return true
				}
				if s, ok := errorLiteral(x); ok {
					if !strings.HasPrefix(s, prefix) {
						fault(x, "%s returns the error %q without the prefix %q", fd.Name.Name, s, prefix)
					}
					return true
				}
				if c, ok := x.(*ast.CallExpr); ok {
					if id, ok := c.Fun.(*ast.Ident); ok {
						for _, w := range wrappers {
							if id.Name == w {
								return true
							}
						}
					}
				}
				var b strings.Builder
				_ = printer.Fprint(&b, fset, x)
				fault(x, "%s returns %s, which nothing gives the prefix %q", fd.Name.Name, b.String(), prefix)
				return true
			})
		}
	}
	slices.SortFunc(all, func(a, b found) int { return int(a.pos) - int(b.pos) })
	var faults []string
	for _, f := range all {
		faults = append(faults, f.msg)
	}
	return faults, nil
}

// returnsError reports whether the last result of a function of type ft
// is an error.
func returnsError(ft *ast.FuncType) bool {
	if ft.Results == nil || len(ft.Results.List) == 0 {
		return false
	}
	id, ok := ft.Results.List[len(ft.Results.List)-1].Type.(*ast.Ident)
	return ok && id.Name == "error"
}

// errorLiteral returns the format of n when n is errors.New or fmt.Errorf
// called with a string literal.
func errorLiteral(n ast.Node) (string, bool) {
	c, ok := n.(*ast.CallExpr)
	if !ok || len(c.Args) == 0 {
		return "", false
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || !(pkg.Name == "errors" && sel.Sel.Name == "New" || pkg.Name == "fmt" && sel.Sel.Name == "Errorf") {
		return "", false
	}
	lit, ok := c.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}
