package amem_test

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/amem-dev/amem"

// pkgInfo is what go list says of a package.
type pkgInfo struct {
	ImportPath string
	Standard   bool
	Imports    []string
	Deps       []string
}

// goList lists the module's packages (or patterns) with go list -json.
func goList(t *testing.T, args ...string) []pkgInfo {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json"}, args...)...)
	cmd.Dir = "."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v", args, err)
	}
	var pkgs []pkgInfo
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkgInfo
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func ours(path string) bool { return path == module || strings.HasPrefix(path, module+"/") }

// The house's import rules: the domain is a leaf that imports nothing
// outside the standard library, none of this module's packages either; the search pipeline reads
// no store and knows no engine; the engine, the kernel beneath it (the
// index cache) and the enrichment beside it know no server, store or
// command, and the enrichment reaches the memory and its indexes only
// through enrich.Host, as export and import (package transfer) do through
// transfer's interfaces, and neither imports the other; internal/ holds
// helpers beneath the engine, so none of them imports an engine, store,
// server, model client or command (what the two commands share is
// cmd/internal/cli); nothing but a command imports a command's package.
func TestImportRules(t *testing.T) {
	all := goList(t, "./...")
	byPath := map[string]pkgInfo{}
	for _, p := range all {
		byPath[p.ImportPath] = p
	}
	std := map[string]bool{}
	for _, p := range goList(t, "-deps", ".") {
		std[p.ImportPath] = p.Standard
	}
	for _, d := range byPath[module].Deps {
		if !std[d] {
			t.Errorf("the root package (the domain, a leaf) depends on %s, outside the standard library", d)
		}
	}
	rules := []struct {
		pkg    string
		banned []string
	}{
		{"/search", []string{"/memory", "/sqlite", "/postgres", "/server", "/mcpserver", "/local", "/lexindex", "/index"}},
		{"/search/conversation", []string{"/memory", "/sqlite", "/postgres", "/server", "/mcpserver", "/local"}},
		{"/memory", []string{"/sqlite", "/postgres", "/server", "/mcpserver", "/local", "/eval", "/cmd"}},
		{"/kernel", []string{"/memory", "/sqlite", "/postgres", "/server", "/mcpserver", "/local", "/eval", "/cmd"}},
		{"/enrich", []string{"/memory", "/kernel", "/transfer", "/sqlite", "/postgres", "/server", "/mcpserver", "/local", "/eval", "/cmd"}},
		{"/transfer", []string{"/enrich", "/memory", "/kernel", "/sqlite", "/postgres", "/server", "/mcpserver", "/local", "/eval", "/cmd"}},
	}
	for _, r := range rules {
		p, ok := byPath[module+r.pkg]
		if !ok {
			t.Fatalf("no package %s", r.pkg)
		}
		for _, d := range p.Deps {
			for _, b := range r.banned {
				if d == module+b || strings.HasPrefix(d, module+b+"/") {
					t.Errorf("%s depends on %s", r.pkg, d)
				}
			}
		}
	}
	beneath := []string{"/memory", "/enrich", "/transfer", "/kernel", "/local", "/sqlite", "/postgres", "/server", "/mcpserver",
		"/offline", "/llmcurator", "/openai", "/anthropic", "/uselite", "/eval", "/cmd"}
	for _, p := range all {
		if !strings.HasPrefix(p.ImportPath, module+"/internal/") {
			continue
		}
		for _, d := range p.Deps {
			for _, b := range beneath {
				if d == module+b || strings.HasPrefix(d, module+b+"/") {
					t.Errorf("%s, a helper beneath the engine, depends on %s", p.ImportPath, d)
				}
			}
		}
	}
	for _, p := range all {
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module+"/cmd/") && !(strings.HasPrefix(imp, module+"/cmd/internal/") && strings.HasPrefix(p.ImportPath, module+"/cmd/")) {
				t.Errorf("%s imports the command %s", p.ImportPath, imp)
			}
		}
	}
}

// The product binary, built as the Makefile builds it, links neither the
// lab (gonum, plotting) nor anything that runs a text or HTML template:
// template execution may call any exported method by name, so the linker
// keeps every exported method of every type in the binary (about 9 MB
// of amem's 52). cobra runs templates only for custom help or version
// templates, which cmd/amem does not set; gRPC, under the OTLP exporter,
// leaves golang.org/x/net/trace out under -tags grpcnotrace.
func TestProductLinks(t *testing.T) {
	for _, p := range goList(t, "-deps", "-tags", "grpcnotrace", "./cmd/amem") {
		switch {
		case strings.HasPrefix(p.ImportPath, "gonum.org/"):
			t.Errorf("cmd/amem links %s, the lab's", p.ImportPath)
		case p.ImportPath == "html/template", p.ImportPath == "golang.org/x/net/trace":
			t.Errorf("cmd/amem links %s, which runs templates", p.ImportPath)
		}
		if ours(p.ImportPath) && slices.Contains(p.Imports, "text/template") {
			t.Errorf("%s imports text/template; the product runs no template", p.ImportPath)
		}
	}
}
