// Package clitest holds what the tests of the amem commands share: the
// check that a command tree and the CLI reference (docs/CLI.md) agree.
package clitest

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cliReference is the "## CLI reference" section of the file at path (docs/CLI.md):
// the text before its table (the global flags) and the table's rows.
func cliReference(t *testing.T, path string) (intro string, rows []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## CLI reference\n")
	if !ok {
		t.Fatalf(`%s has no "## CLI reference" section`, path)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	for line := range strings.Lines(sec) {
		switch {
		case strings.HasPrefix(line, "| `amem"):
			rows = append(rows, line)
		case len(rows) == 0 && !strings.HasPrefix(line, "|"):
			intro += line
		}
	}
	return intro, rows
}

// commands is every command under root, depth first, with root first when
// it runs by itself; cobra's help command is left out.
func commands(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	if root.Runnable() && !root.HasParent() {
		out = append(out, root)
	}
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Hidden {
			continue
		}
		out = append(out, c)
		out = append(out, commands(c)...)
	}
	return out
}

// flagRE finds the long flags a piece of the reference names.
var flagRE = regexp.MustCompile("--[a-z][a-z0-9-]*")

// CheckReference keeps the CLI table of the file at path and root's
// command tree in step, both ways: every verb (and root itself, when it
// runs) has a row that starts with it, every flag of a verb is in its
// row, every global flag is in the text above the table, as is
// "NAME --version" when root has a version; and no row of root's names a
// flag its verbs do not have.
func CheckReference(t *testing.T, path string, root *cobra.Command) {
	t.Helper()
	name := root.Name()
	intro, all := cliReference(t, path)
	var rows []string // root's: "| `NAME " or "| `NAME`"
	for _, r := range all {
		if rest, ok := strings.CutPrefix(r, "| `"+name); ok && (strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "`")) {
			rows = append(rows, r)
		}
	}
	root.InitDefaultCompletionCmd()
	global := root.PersistentFlags()
	global.VisitAll(func(f *pflag.Flag) {
		if !strings.Contains(intro, "`--"+f.Name) {
			t.Errorf("%s's global flag --%s is not in the text above the CLI table", name, f.Name)
		}
	})
	if root.Version != "" && !strings.Contains(intro, name+" --version") {
		t.Error("--version is not in the text above the CLI table")
	}
	rowOf := func(c *cobra.Command) string {
		cell := regexp.MustCompile("`" + regexp.QuoteMeta(c.CommandPath()) + "[` \\[]")
		if c == root {
			cell = regexp.MustCompile("`" + regexp.QuoteMeta(name) + "(`| \\[| --)")
		}
		for _, r := range rows {
			first, _, _ := strings.Cut(strings.TrimPrefix(r, "|"), " | ")
			if cell.MatchString(first) {
				return r
			}
		}
		return ""
	}
	known := map[string][]string{} // row -> flags its verbs have
	for _, c := range commands(root) {
		row := rowOf(c)
		if row == "" {
			t.Errorf("no row of the CLI table starts with `%s`", c.CommandPath())
			continue
		}
		c.NonInheritedFlags().VisitAll(func(f *pflag.Flag) {
			if c == root && global.Lookup(f.Name) != nil {
				return // root's own persistent flags are the global ones
			}
			known[row] = append(known[row], "--"+f.Name)
			if f.Name == "help" {
				return
			}
			if !slices.Contains(flagRE.FindAllString(row, -1), "--"+f.Name) {
				t.Errorf("%s --%s is not in its row of the CLI table", c.CommandPath(), f.Name)
			}
		})
	}
	global.VisitAll(func(f *pflag.Flag) {
		for _, r := range rows {
			known[r] = append(known[r], "--"+f.Name)
		}
	})
	for _, r := range rows {
		first, _, _ := strings.Cut(strings.TrimPrefix(r, "|"), " | ")
		for _, fl := range flagRE.FindAllString(first, -1) {
			if !slices.Contains(known[r], fl) && fl != "--version" {
				t.Errorf("the CLI table names %s in %q, which none of its verbs has", fl, strings.TrimSpace(first))
			}
		}
	}
}
