package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem/uselite"
)

// versionInfo is what amem version reports: enough to tell two builds
// apart in a bug report.
type versionInfo struct {
	Version string `json:"version"` // the release line, as the servers report it
	// Module is the main module's version as the go command stamped it:
	// a tag, a pseudo-version for a checkout, or "(devel)".
	Module string `json:"module,omitempty"`
	// Revision, Time and Modified describe the checkout it was built
	// from, when built from one.
	Revision string `json:"vcs_revision,omitempty"`
	Time     string `json:"vcs_time,omitempty"`
	Modified bool   `json:"vcs_modified,omitempty"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
	// Embedder is the default embedder's model, whose vectors a new
	// namespace holds unless --embedder says otherwise.
	Embedder string `json:"embedder"`
}

// buildVersion reads bi (nil when the binary has no build information).
func buildVersion(bi *debug.BuildInfo) versionInfo {
	v := versionInfo{Version: version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, Embedder: uselite.ModelName}
	if bi == nil {
		return v
	}
	v.Module, v.Go = bi.Main.Version, bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

func currentVersion() versionInfo {
	bi, _ := debug.ReadBuildInfo()
	return buildVersion(bi)
}

func (v versionInfo) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "amem version %s\n", v.Version)
	if v.Module != "" {
		fmt.Fprintf(&b, "  module:   %s\n", v.Module)
	}
	if v.Revision != "" {
		dirty := ""
		if v.Modified {
			dirty = ", with uncommitted changes"
		}
		fmt.Fprintf(&b, "  commit:   %s (%s%s)\n", v.Revision, v.Time, dirty)
	}
	fmt.Fprintf(&b, "  go:       %s %s\n", v.Go, v.Platform)
	fmt.Fprintf(&b, "  embedder: %s (the default)\n", v.Embedder)
	return b.String()
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print amem's version, the commit it was built from, its Go version and its default embedder",
		Args:  exactArgs(0, ""),
		// A broken configuration file must not hide the version, which is
		// what one asks for when reporting it.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, args []string) error {
			v := currentVersion()
			if a.jsonOut {
				return a.printJSON(v)
			}
			fmt.Fprint(a.stdout, v)
			return nil
		},
	}
}
