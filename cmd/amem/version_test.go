package main

import (
	"context"
	"encoding/json"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/amem-dev/amem/uselite"
)

// TestVersionFromACheckout: a binary built from a checkout reports its
// commit, the commit's time and whether the tree had uncommitted changes.
func TestVersionFromACheckout(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Path: "github.com/amem-dev/amem", Version: "v0.0.0-20261203164129-936656a00000+dirty"},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "936656a"}, {Key: "vcs.time", Value: "2026-12-03T16:41:29Z"}, {Key: "vcs.modified", Value: "true"}}}
	v := buildVersion(bi)
	want := versionInfo{Version: version, Module: bi.Main.Version, Revision: "936656a", Time: "2026-12-03T16:41:29Z", Modified: true,
		Go: "go1.99.1", Platform: runtime.GOOS + "/" + runtime.GOARCH, Embedder: uselite.ModelName}
	if v != want {
		t.Fatalf("buildVersion:\n%+v\nwant\n%+v", v, want)
	}
	if s := v.String(); !strings.Contains(s, "commit:   936656a (2026-12-03T16:41:29Z, with uncommitted changes)") {
		t.Fatalf("text:\n%s", s)
	}
	if v := buildVersion(nil); v.Go != runtime.Version() || v.Revision != "" || strings.Contains(v.String(), "commit") {
		t.Fatalf("without build information: %+v", v)
	}
}

// TestVersionCommand: amem version, its --json and the root's --version
// all answer, whatever the configuration: a broken configuration file
// must not hide the version of the binary that can't read it.
func TestVersionCommand(t *testing.T) {
	t.Setenv("AMEM_CONFIG", "/nonexistent/amem.json")
	var v versionInfo
	if err := json.Unmarshal([]byte(mustCLI(t, "", "version", "--json")), &v); err != nil {
		t.Fatal(err)
	}
	if v.Version != version || v.Go != runtime.Version() || v.Embedder != uselite.ModelName {
		t.Fatalf("amem version --json: %+v", v)
	}
	text := mustCLI(t, "", "version")
	var flag strings.Builder
	if err := run(context.Background(), []string{"--version"}, strings.NewReader(""), &flag, io.Discard); err != nil || text != v.String() || flag.String() != text {
		t.Fatalf("amem version:\n%s\namem --version (%v):\n%s", text, err, flag.String())
	}
	if !strings.Contains(text, "embedder: "+uselite.ModelName) {
		t.Fatalf("amem version:\n%s", text)
	}
}
