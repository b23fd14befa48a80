package ui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/auth"
	"github.com/amem-dev/amem/enrich"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/offline"
	"github.com/amem-dev/amem/server"
	"github.com/amem-dev/amem/sqlite"
)

// The browser tests drive the UI in headless Chromium against a real
// server: a SQLite store, the lexical embedder (no model download), the
// offline curator and background workers, as amem serve runs them.

// Payloads an agent could store; the UI must show them as text.
const (
	imgXSS    = `<img src=x onerror="window.pwned=1">`
	scriptXSS = `<script>window.pwned=1</script>`
)

type uiEnv struct {
	url   string
	mem   *memory.Memory
	store *sqlite.Store
	log   syncBuffer // the server's log
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// newUIEnv starts the server; curate says whether the offline curator
// enriches notes (without one, a note keeps the tags it was given).
func newUIEnv(t *testing.T, curate bool) *uiEnv {
	t.Helper()
	emb := lexical.New(nil)
	var cur amem.Curator
	if curate {
		cur = offline.New(emb, nil)
	}
	return newUIEnvWith(t, emb, cur)
}

// newUIEnvWith starts the server with this embedder and curator (nil:
// none).
func newUIEnvWith(t *testing.T, emb amem.Embedder, cur amem.Curator) *uiEnv {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "a.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := memory.Open(ctx, st, &memory.Options{Embedder: emb, Curator: cur, Enrich: enrich.Options{Async: true}})
	if err != nil {
		t.Fatal(err)
	}
	e := &uiEnv{mem: mem, store: st}
	srv := httptest.NewServer(server.New(mem, server.Options{Keys: st, Logger: slog.New(slog.NewTextHandler(&e.log, nil))}))
	e.url = srv.URL
	wctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = mem.RunWorkers(wctx, memory.WorkerOptions{PollInterval: 50 * time.Millisecond})
	}()
	t.Cleanup(func() {
		srv.Close()
		stop()
		<-done
		mem.Close()
	})
	return e
}

func (e *uiEnv) key(t *testing.T, nss ...string) string {
	t.Helper()
	k, token, err := auth.NewKey("ui test", len(nss) == 0, nss, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.CreateKey(context.Background(), k); err != nil {
		t.Fatal(err)
	}
	return token
}

func (e *uiEnv) add(t *testing.T, ns, content string, meta map[string]string) amem.Note {
	t.Helper()
	n, err := e.mem.Add(context.Background(), amem.AddRequest{Namespace: ns, Content: content, Metadata: meta, Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// chromiumPath finds the browser. A missing one fails the test: CI
// installs Debian's chromium, and a skip would hide that the UI went
// untested.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("AMEM_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	t.Fatal("chromium not found: the browser tests need it (apt-get install chromium, or set AMEM_CHROMIUM)")
	return ""
}

// page is one browser tab. It records uncaught exceptions and
// Content-Security-Policy violations, which fail the test: the UI must
// work under its own policy.
type page struct {
	t    *testing.T
	ctx  context.Context
	base string

	mu       sync.Mutex
	problems []string
	console  int // console warnings and errors
}

func newPage(t *testing.T, base string) *page {
	t.Helper()
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	p := &page{t: t, ctx: ctx, base: base}
	if err := chromedp.Listen(ctx, p.listen); err != nil {
		t.Fatal(err)
	}
	// The first action starts the browser; it must run on a context
	// without a deadline, which would end the browser with it.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	t.Cleanup(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, msg := range p.problems {
			t.Errorf("browser: %s", msg)
		}
	})
	return p
}

func (p *page) listen(ev any) {
	var msg string
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		msg = "uncaught exception: " + ev.ExceptionDetails.Text
		if ev.ExceptionDetails.Exception != nil {
			msg += " " + ev.ExceptionDetails.Exception.Description
		}
	case *log.EventEntryAdded:
		if ev.Entry.Source == log.EntrySourceSecurity || strings.Contains(ev.Entry.Text, "Content Security Policy") {
			msg = "CSP: " + ev.Entry.Text
		}
	case *runtime.EventConsoleAPICalled:
		// Warnings are defects too: a library warning on every draw
		// buries the one that matters.
		if ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeError {
			var args []string
			for _, a := range ev.Args {
				if len(a.Value) > 0 {
					args = append(args, string(a.Value))
				} else {
					args = append(args, a.Description)
				}
			}
			msg = "console " + string(ev.Type) + ": " + strings.Join(args, " ")
			p.mu.Lock()
			p.console++
			p.mu.Unlock()
		}
	}
	if msg != "" {
		p.mu.Lock()
		p.problems = append(p.problems, msg)
		p.mu.Unlock()
	}
}

// consoleCount is how many console warnings and errors the page gave.
func (p *page) consoleCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.console
}

func (p *page) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("browser: %v\npage text: %.2000s", err, p.bodyText())
	}
}

func eval[T any](p *page, expr string, opts ...chromedp.EvaluateOption) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, opts...))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

func (p *page) bodyText() string {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	return s
}

// waitFor polls a JavaScript condition until it is true, for 20 s.
func (p *page) waitFor(what, cond string) {
	p.t.Helper()
	p.waitLong(what, cond, 20*time.Second)
}

func (p *page) waitLong(what, cond string, d time.Duration) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, d+10*time.Second)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](cond,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(d)))
	if err != nil {
		p.t.Fatalf("waiting for %s (%s): %v\npage text: %.2000s", what, cond, err, p.bodyText())
	}
}

// goTo changes the UI's route in place, as following a link does.
func (p *page) goTo(hash string) {
	p.t.Helper()
	eval[chromedp.Void](p, fmt.Sprintf(`location.hash = %s`, js(hash)))
}

// js quotes s as a JavaScript string.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (p *page) text(sel string) string {
	p.t.Helper()
	return eval[string](p, fmt.Sprintf(`document.querySelector(%s)?.textContent ?? ''`, js(sel)))
}

// noMarkup checks that nothing the notes hold became markup: no payload
// ran, and no element of theirs exists.
func (p *page) noMarkup(where string) {
	p.t.Helper()
	if pwned := eval[bool](p, `window.pwned !== undefined`); pwned {
		p.t.Fatalf("%s: a payload ran (window.pwned is set)", where)
	}
	if n := eval[int](p, `document.querySelectorAll('main img, main script, main [onerror]').length`); n > 0 {
		p.t.Fatalf("%s: %d elements came from note data", where, n)
	}
}

func (p *page) signIn(key string) {
	p.t.Helper()
	p.do(chromedp.Navigate(p.base+"/ui/"),
		chromedp.WaitVisible(chromedp.ID("key")),
		chromedp.SendKeys(chromedp.ID("key"), key),
		chromedp.Click(chromedp.CSS(`form button[type="submit"]`)))
	p.waitFor("the notes list", `document.querySelector('#notes, #no-notes') !== null`)
}

func TestBrowser(t *testing.T) {
	e := newUIEnv(t, true)
	ctx := context.Background()
	support := e.add(t, "a", "Caroline went to an LGBTQ support group on Sunday", nil)
	adoption := e.add(t, "a", "Caroline is researching adoption agencies after the support group", nil)
	e.add(t, "a", "Melanie painted a sunrise over the lake last year", nil)
	evil := map[string]string{"source": scriptXSS, imgXSS: "key"}
	xImg := e.add(t, "a", imgXSS, evil)
	xScript := e.add(t, "a", scriptXSS, evil)
	for _, n := range []amem.Note{xImg, xScript} {
		tags := []string{scriptXSS, imgXSS}
		if _, err := e.mem.Update(ctx, "a", n.ID, amem.UpdateRequest{Tags: &tags, Reason: imgXSS}); err != nil {
			t.Fatal(err)
		}
	}
	secret := e.add(t, "b", "the secret plans of namespace b", nil)
	adoption, err := e.mem.Get(ctx, "a", adoption.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(adoption.Links) == 0 {
		t.Fatal("the offline curator linked nothing; the test needs a link to follow")
	}
	linked := adoption.Links[0].Other(adoption.ID)

	p := newPage(t, e.url)
	keyA := e.key(t, "a")
	p.signIn(keyA)
	// The key travels in the Authorization header only: never in a URL,
	// so never in the server's log.
	t.Cleanup(func() {
		if log := e.log.String(); strings.Contains(log, keyA) || !strings.Contains(log, "/v1/namespaces/a/notes") {
			t.Errorf("the server's log holds the key, or no UI request:\n%.3000s", log)
		}
	})

	t.Run("list", func(t *testing.T) {
		p.t = t
		if got := eval[[]string](p, `[...document.querySelectorAll('#ns-select option')].map(o => o.value)`); len(got) != 1 || got[0] != "a" {
			t.Errorf("namespaces offered: %q, want [a]", got)
		}
		list := p.text("#notes")
		for _, want := range []string{imgXSS, scriptXSS, "Melanie painted"} {
			if !strings.Contains(list, want) {
				t.Errorf("the list lacks %q as text: %.500s", want, list)
			}
		}
		p.noMarkup("list")
		// Filter by state and order: the oldest first is the first note.
		p.goTo("#/notes?order=oldest&state=done")
		p.waitFor("oldest first", `document.querySelector('#notes tbody tr')?.dataset.id === `+js(support.ID))
		p.goTo("#/notes?tag=" + strings.ReplaceAll(scriptXSS, "=", "%3D"))
		p.waitFor("the tag filter", `document.querySelectorAll('#notes tbody tr').length === 2`)
		p.noMarkup("filtered list")
	})

	t.Run("search, open a note, follow a link", func(t *testing.T) {
		p.t = t
		p.do(chromedp.Click(chromedp.CSS(`#nav a[href="#/search"]`)),
			chromedp.WaitVisible(chromedp.ID("s-q")),
			chromedp.SendKeys(chromedp.ID("s-q"), "support group"),
			chromedp.Click(chromedp.CSS(`form[role="search"] button[type="submit"]`)))
		p.waitFor("direct hits", `document.querySelector('#direct tbody tr') !== null && document.querySelector('#linked, #linked-none') !== null`)
		first := eval[string](p, `document.querySelector('#direct tbody tr').dataset.id`)
		p.do(chromedp.Click(chromedp.CSS(`#direct tbody tr a`)))
		want, err := e.mem.Get(ctx, "a", first)
		if err != nil {
			t.Fatal(err)
		}
		p.waitFor("the note page", `document.querySelector('#note-content')?.textContent === `+js(want.Content))

		p.goTo("#/note/" + adoption.ID)
		p.waitFor("the linked note's row", `document.querySelector('#links a') !== null && document.querySelector('#note-content')?.textContent === `+js(adoption.Content))
		p.do(chromedp.Click(chromedp.CSS(`#links a[href="#/note/` + linked + `"]`)))
		other, err := e.mem.Get(ctx, "a", linked)
		if err != nil {
			t.Fatal(err)
		}
		p.waitFor("the linked note", `document.querySelector('#note-content')?.textContent === `+js(other.Content))

		p.goTo("#/search?q=" + "window+pwned&mode=lexical")
		p.waitFor("payload hits", `document.querySelectorAll('#direct tbody tr').length >= 2`)
		if got := p.text("#direct"); !strings.Contains(got, imgXSS) || !strings.Contains(got, scriptXSS) {
			t.Errorf("search results lack the payloads as text: %.500s", got)
		}
		p.noMarkup("search")
	})

	t.Run("payloads on the note page and in the history", func(t *testing.T) {
		p.t = t
		for _, n := range []amem.Note{xImg, xScript} {
			p.goTo("#/note/" + n.ID)
			p.waitFor("the note page", `document.querySelector('#note-content')?.textContent === `+js(n.Content))
			for sel, want := range map[string]string{"#note-tags": scriptXSS, "#note-meta": scriptXSS, "#history": imgXSS} {
				if got := p.text(sel); !strings.Contains(got, want) {
					t.Errorf("%s of %s lacks %q as text: %.300s", sel, n.ID, want, got)
				}
			}
			if got := p.text("#history"); !strings.Contains(got, scriptXSS) {
				t.Errorf("the history diff lacks the tag %q: %.500s", scriptXSS, got)
			}
			p.noMarkup("note page")
		}
	})

	t.Run("restore a version", func(t *testing.T) {
		p.t = t
		p.goTo("#/note/" + xImg.ID)
		p.waitFor("the history", `document.querySelector('button[data-version="1"]') !== null`)
		p.do(chromedp.Click(chromedp.CSS(`button[data-version="1"]`)))
		p.waitFor("the restore in the history", `document.querySelector('#history h3')?.textContent.includes('restore')`)
		n, err := e.mem.Get(ctx, "a", xImg.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(n.Tags) != 0 {
			t.Errorf("after restoring version 1 the tags are %q, want none", n.Tags)
		}
	})

	t.Run("graph", func(t *testing.T) {
		p.t = t
		p.goTo("#/note/" + adoption.ID)
		p.waitFor("the note page", `document.querySelector('#note-content')?.textContent === `+js(adoption.Content))
		p.do(chromedp.Click(chromedp.ID("show-graph")))
		p.waitFor("the neighbourhood", `document.querySelector('#graph-count')?.textContent.includes('notes') && document.querySelector('#g-content') !== null`)
		before := eval[int](p, `document.getElementById('cy').cy.nodes().length`)
		if before < 2 {
			t.Fatalf("the neighbourhood of %s has %d notes", adoption.ID, before)
		}
		// The adoption note's enrichment evolved the support note (the
		// offline curator added keywords to it): highlight it.
		vs, err := e.mem.History(ctx, "a", support.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(vs, func(v amem.Version) bool {
			return v.Actor == amem.ActorEvolve && strings.HasPrefix(v.Reason, "evolved by new note "+adoption.ID)
		}) {
			t.Fatalf("the test needs %s evolved by %s; its history: %+v", support.ID, adoption.ID, vs)
		}
		p.do(chromedp.Click(chromedp.ID("g-evolved")))
		p.waitFor("the evolved note highlighted", `document.getElementById('cy').cy.getElementById(`+js(support.ID)+`).hasClass('evolved')`)
		// Click the linked note on the canvas, then expand it.
		xy := eval[[]float64](p, `(() => { const c = document.getElementById('cy'); const p = c.cy.getElementById(`+js(linked)+`).renderedPosition(); const r = c.getBoundingClientRect(); return [r.left + p.x, r.top + p.y]; })()`)
		p.do(chromedp.MouseClickXY(xy[0], xy[1]))
		other, err := e.mem.Get(ctx, "a", linked)
		if err != nil {
			t.Fatal(err)
		}
		p.waitFor("the clicked note in the panel", `document.querySelector('#g-content')?.textContent === `+js(other.Content))
		p.do(chromedp.Click(chromedp.ID("g-expand")))
		p.waitFor("the expansion", `document.getElementById('g-expand')?.textContent === 'Expanded'`)
		p.do(chromedp.Click(chromedp.ID("g-open")))
		p.waitFor("the note page", `document.querySelector('#note-content')?.textContent === `+js(other.Content))

		p.goTo("#/graph")
		p.waitFor("the whole namespace", `document.querySelector('#graph-count')?.textContent.startsWith('5 notes')`)
		labels := eval[[]string](p, `document.getElementById('cy').cy.nodes().map(n => n.data('label'))`)
		if !strings.Contains(strings.Join(labels, "\n"), `<script>window.pwned`) {
			t.Errorf("graph labels %q lack the payload as text", labels)
		}
		p.noMarkup("graph")
		// Without a mouse: the list beside the canvas selects a note.
		p.do(chromedp.Focus(chromedp.ID("g-pick")))
		eval[chromedp.Void](p, `(() => { const s = document.getElementById('g-pick'); s.value = `+js(support.ID)+`; s.dispatchEvent(new Event('change')); })()`)
		p.waitFor("the picked note", `document.querySelector('#g-content')?.textContent === `+js(support.Content))
	})

	t.Run("add and delete a note", func(t *testing.T) {
		p.t = t
		const content = "Melanie went kayaking on the lake with her kids"
		p.do(chromedp.Click(chromedp.CSS(`#nav a[href="#/new"]`)),
			chromedp.WaitVisible(chromedp.ID("w-content")),
			chromedp.SendKeys(chromedp.ID("w-content"), content),
			chromedp.SendKeys(chromedp.ID("w-tags"), "outdoors, family"),
			chromedp.Click(chromedp.ID("w-wait")),
			chromedp.Click(chromedp.CSS(`form button[type="submit"]`)))
		p.waitFor("the new note", `document.querySelector('#note-content')?.textContent === `+js(content))
		p.waitFor("its enrichment", `document.querySelector('#note-state')?.textContent.startsWith('done')`)
		id := eval[string](p, `decodeURIComponent(location.hash.split('/')[2])`)
		p.do(chromedp.Click(chromedp.CSS(`a[href^="#/edit/"]`)),
			chromedp.WaitVisible(chromedp.ID("w-reason")),
			chromedp.SetValue(chromedp.ID("w-content"), content+" and a dog"),
			chromedp.SendKeys(chromedp.ID("w-reason"), "the dog came too"),
			chromedp.Click(chromedp.CSS(`form button[type="submit"]`)))
		// The new content is enriched again at once: the edit need not be
		// the newest version.
		p.waitFor("the edit in the history", `[...document.querySelectorAll('#history section')].some(s =>
			s.textContent.includes('the dog came too') && [...s.querySelectorAll('ins')].some(i => i.textContent.includes('dog')))`)
		p.do(chromedp.Click(chromedp.ID("delete")),
			chromedp.WaitVisible(chromedp.ID("confirm-ok")),
			chromedp.Click(chromedp.ID("confirm-ok")))
		p.waitFor("the list", `location.hash === '#/notes' && document.querySelector('#notes') !== null`)
		if _, err := e.mem.Get(ctx, "a", id); !errors.Is(err, amem.ErrNotFound) {
			t.Errorf("after delete, Get %s: %v, want not found", id, err)
		}
	})

	t.Run("stats", func(t *testing.T) {
		p.t = t
		p.do(chromedp.Click(chromedp.CSS(`#nav a[href="#/stats"]`)))
		p.waitFor("the stats", `document.querySelector('#stats-summary')?.textContent.startsWith('5 notes') && document.querySelectorAll('svg.chart rect').length >= 3`)
		p.waitFor("the retention policy", `document.querySelector('#stats-retention')?.textContent.startsWith('Retention: none')`)
	})

	t.Run("namespace b stays out of reach", func(t *testing.T) {
		p.t = t
		p.goTo("#/note/" + secret.ID)
		// The UI asks in its own namespace only, where the ID is unknown.
		p.waitFor("the refusal", `document.querySelector('main')?.textContent.includes('in namespace a: not found')`)
		// A namespace slipped into the tab's storage is not taken either.
		p.goTo("#/notes")
		eval[chromedp.Void](p, `sessionStorage.setItem('amem.ns', 'b')`)
		p.do(chromedp.Reload())
		p.waitFor("the list of a", `document.querySelector('#notes') !== null && document.getElementById('ns-select').value === 'a'`)
		if body := p.bodyText(); strings.Contains(body, "secret plans") {
			t.Errorf("namespace b's note shows: %.500s", body)
		}
		p.goTo("#/graph")
		p.waitFor("the graph of a", `document.querySelector('#graph-count')?.textContent.includes('notes')`)
		if n := eval[int](p, `document.getElementById('cy').cy.getElementById(`+js(secret.ID)+`).length`); n != 0 {
			t.Error("namespace b's note is in the graph")
		}
		// The key the UI holds is refused in b, should the page be made
		// to ask.
		status := eval[int](p, `fetch('/v1/namespaces/b/notes', {headers: {Authorization: 'Bearer ' + sessionStorage.getItem('amem.key')}}).then(r => r.status)`, chromedp.EvalAwaitPromise)
		if status != 403 {
			t.Errorf("the UI's key reading namespace b: %d, want 403", status)
		}
	})
	t.Run("light and dark, with contrast", func(t *testing.T) {
		p.t = t
		for _, scheme := range []string{"light", "dark"} {
			_, err := chromedp.Call(p.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
			if err != nil {
				t.Fatal(err)
			}
			colours := eval[map[string]string](p, `(() => {
				const s = getComputedStyle(document.documentElement), out = {};
				for (const v of ['bg', 'fg', 'muted', 'panel', 'accent', 'danger', 'ok', 'warn']) out[v] = s.getPropertyValue('--' + v).trim();
				return out;
			})()`)
			// Text on the page and panel backgrounds, and the primary
			// button's text on the accent, need WCAG AA's 4.5:1.
			for _, pair := range [][2]string{{"fg", "bg"}, {"muted", "bg"}, {"accent", "bg"}, {"danger", "bg"}, {"ok", "bg"},
				{"warn", "bg"}, {"fg", "panel"}, {"muted", "panel"}, {"accent", "panel"}, {"bg", "accent"}} {
				if r := contrast(t, colours[pair[0]], colours[pair[1]]); r < 4.5 {
					t.Errorf("%s: %s on %s has contrast %.2f, want 4.5 or more", scheme, pair[0], pair[1], r)
				}
			}
			if scheme == "dark" && colours["bg"] == "#ffffff" {
				t.Error("the dark scheme has a white background")
			}
		}
	})
	p.t = t
	p.noMarkup("the end")
}

// contrast is the WCAG contrast ratio of two #rrggbb colours.
func contrast(t *testing.T, a, b string) float64 {
	t.Helper()
	lum := func(hex string) float64 {
		var r, g, b uint8
		if _, err := fmt.Sscanf(hex, "#%02x%02x%02x", &r, &g, &b); err != nil {
			t.Fatalf("colour %q: %v", hex, err)
		}
		lin := func(c uint8) float64 {
			v := float64(c) / 255
			if v <= 0.03928 {
				return v / 12.92
			}
			return math.Pow((v+0.055)/1.055, 2.4)
		}
		return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
	}
	la, lb := lum(a), lum(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// TestBrowserLargeGraph: the graph of a namespace of 2,000 notes and
// 4,000 links loads, lays out and answers a click in reasonable time on
// a small machine.
func TestBrowserLargeGraph(t *testing.T) {
	e := newUIEnv(t, false)
	ctx := context.Background()
	const notes = 2000
	var ids []string
	for start := 0; start < notes; start += 500 {
		reqs := make([]amem.AddRequest, 500)
		for i := range reqs {
			reqs[i] = amem.AddRequest{Namespace: "big", Content: fmt.Sprintf("note %d about topic %d", start+i, (start+i)%37),
				Tags: []string{fmt.Sprintf("topic%d", (start+i)%12)}}
		}
		added, err := e.mem.AddBatch(ctx, reqs)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range added {
			ids = append(ids, n.ID)
		}
	}
	err := e.store.Update(ctx, func(tx amem.Tx) error {
		for i := 1; i < notes; i++ {
			for _, j := range []int{i - 1, (i * 7919) % i} {
				if err := tx.PutLink("big", amem.Link{Source: ids[i], Target: ids[j], Strength: float64(i%10) / 10, CreatedAt: time.Now()}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	p := newPage(t, e.url)
	p.signIn(e.key(t, "big"))
	start := time.Now()
	p.goTo("#/graph")
	p.waitLong("the graph", `document.querySelector('#graph-count')?.textContent.startsWith('2000 notes')`, 120*time.Second)
	loaded := time.Since(start)
	edges := eval[int](p, `document.getElementById('cy').cy.edges().length`)
	t.Logf("2,000 notes and %d links drawn in %v", edges, loaded)
	if edges < notes {
		t.Errorf("%d links drawn, want at least %d", edges, notes)
	}
	// Generous bounds, for a loaded CI machine (a 2-core one at load 15
	// took 45 s and 12 s a click under -race): they catch the graph falling
	// back to cose at this size, which takes minutes with the page frozen.
	// An idle machine draws it in a few seconds.
	if loaded > 90*time.Second {
		t.Errorf("the graph took %v to draw", loaded)
	}
	// Click a note in view (the whole graph fits the view, some notes
	// under the status text may not).
	xy := eval[[]float64](p, `(() => {
		const c = document.getElementById('cy'), r = c.getBoundingClientRect();
		for (const n of c.cy.nodes()) {
			const p = n.renderedPosition(), x = r.left + p.x, y = r.top + p.y;
			if (x > r.left + 5 && x < r.right - 5 && y > r.top + 5 && y < Math.min(r.bottom, innerHeight) - 5) return [x, y];
		}
		return [];
	})()`)
	if len(xy) != 2 {
		t.Fatal("no note is in view")
	}
	start = time.Now()
	p.do(chromedp.MouseClickXY(xy[0], xy[1]))
	p.waitLong("the selection", `document.querySelector('#g-content') !== null`, 40*time.Second)
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("a click took %v to answer", took)
	}
}
