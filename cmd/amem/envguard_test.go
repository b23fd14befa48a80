package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// envReaders are the functions that read the process environment, by
// import path.
var envReaders = map[string][]string{
	"os":      {"Getenv", "LookupEnv", "Environ", "ExpandEnv"},
	"syscall": {"Getenv", "Environ"},
}

// TestNoEnvironmentBelowCmd keeps configuration in one place: the command
// resolves flags, environment and configuration file into one explicit
// local.Config (cmd/internal/cli/config.go, with the environment the command
// passes in), and no package below cmd/ reads the environment behind its
// back. Tests may (t.Setenv, opt-in data sets).
func TestNoEnvironmentBelowCmd(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found from cmd/amem: %v", err)
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			name := d.Name()
			if rel == "cmd" || name == "testdata" || name == "node_modules" || name == "vendor" || (strings.HasPrefix(name, ".") && rel != ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, use := range envReads(t, rel, src) {
			t.Errorf("%s reads the environment (%s): resolve the setting in cmd/internal/cli/config.go and pass it in", rel, use)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("only %d Go files checked under %s; is the walk broken?", files, root)
	}
}

// envReads lists where src refers to an environment reader, as
// "line:pkg.Func", whatever name the file imports the package under.
func envReads(t *testing.T, name string, src []byte) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	local := map[string]string{} // name in the file -> import path
	var found []string
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if envReaders[path] == nil {
			continue
		}
		as := filepath.Base(path)
		if imp.Name != nil {
			as = imp.Name.Name
		}
		if as == "." {
			found = append(found, fset.Position(imp.Pos()).String()+": dot import of "+path)
			continue
		}
		local[as] = path
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		if path, ok := local[id.Name]; ok {
			for _, fn := range envReaders[path] {
				if sel.Sel.Name == fn {
					found = append(found, strconv.Itoa(fset.Position(sel.Pos()).Line)+":"+path+"."+fn)
				}
			}
		}
		return true
	})
	return found
}

// The guard itself: it sees a reader under any import name, called or
// passed around, and leaves alone what only looks like one.
func TestEnvReads(t *testing.T) {
	src := `package p

import (
	"os"
	sys "syscall"
	other "example.com/os"
)

var lookup = os.LookupEnv

func f() string {
	v, _ := sys.Getenv("A")
	_ = other.Getenv("B")
	_ = os.Getpid()
	return os.Getenv("C") + v
}
`
	got := strings.Join(envReads(t, "p.go", []byte(src)), " ")
	if want := "9:os.LookupEnv 12:syscall.Getenv 15:os.Getenv"; got != want {
		t.Errorf("found %q, want %q", got, want)
	}
}
