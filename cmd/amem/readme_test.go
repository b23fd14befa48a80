package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cliReference is the README's "## CLI reference" section: the text
// before its table (the global flags) and the table's rows.
func cliReference(t *testing.T) (intro string, rows []string) {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## CLI reference\n")
	if !ok {
		t.Fatal(`README.md has no "## CLI reference" section`)
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

// commands is every command under root, depth first, with its path
// ("keys create"); cobra's help command is left out.
func commands(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Hidden {
			continue
		}
		out = append(out, c)
		out = append(out, commands(c)...)
	}
	return out
}

func pathOf(c *cobra.Command) string {
	return strings.TrimPrefix(c.CommandPath(), "amem ")
}

// flagRE finds the long flags a piece of the README names.
var flagRE = regexp.MustCompile("--[a-z][a-z0-9-]*")

// TestREADMEListsEveryVerbAndFlag keeps the README's CLI table and the
// command tree in step, both ways: every verb has a row that starts with
// it, every flag of a verb is in its row, every global flag is in the
// text above the table; and no row names a flag its verbs do not have.
func TestREADMEListsEveryVerbAndFlag(t *testing.T) {
	intro, rows := cliReference(t)
	root := (&app{}).rootCmd()
	root.InitDefaultCompletionCmd()
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if !strings.Contains(intro, "`--"+f.Name) {
			t.Errorf("global flag --%s is not in the text above the CLI table", f.Name)
		}
	})
	if !strings.Contains(intro, "amem --version") {
		t.Error("--version is not in the text above the CLI table")
	}
	rowOf := func(path string) string {
		cell := regexp.MustCompile("`amem " + regexp.QuoteMeta(path) + "[` \\[]")
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
		row := rowOf(pathOf(c))
		if row == "" {
			t.Errorf("no row of the CLI table starts with `amem %s`", pathOf(c))
			continue
		}
		c.NonInheritedFlags().VisitAll(func(f *pflag.Flag) {
			known[row] = append(known[row], "--"+f.Name)
			if f.Name == "help" {
				return
			}
			if !slices.Contains(flagRE.FindAllString(row, -1), "--"+f.Name) {
				t.Errorf("amem %s --%s is not in its row of the CLI table", pathOf(c), f.Name)
			}
		})
	}
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
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
