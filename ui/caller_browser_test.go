package ui_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/amem-dev/amem"
)

// TestBrowserCallerContext: a context typed into the edit form with new
// content is the user's: the note page marks it "(yours)" and it
// survives the re-enrichment the edit starts; its "Give back to the
// curator" button hands it back, and the curator's context replaces it.
func TestBrowserCallerContext(t *testing.T) {
	e := newUIEnv(t, true)
	e.add(t, "a", "Melanie painted a sunrise over the lake last year", nil)
	n := e.add(t, "a", "Caroline is researching adoption agencies", nil)
	p := newPage(t, e.url)
	p.signIn(e.key(t, "a"))

	const mine = "Written by me, not by the curator."
	p.goTo("#/note/" + n.ID)
	p.waitFor("the note page", `document.querySelector('#note-content')?.textContent === `+js(n.Content))
	if eval[bool](p, `document.querySelector('.yours') !== null`) {
		t.Fatal("the curator's attributes are marked as the user's")
	}
	p.do(chromedp.Click(chromedp.CSS(`a[href^="#/edit/"]`)),
		chromedp.WaitVisible(chromedp.ID("w-context")),
		chromedp.SetValue(chromedp.ID("w-content"), n.Content+" in Portland"),
		chromedp.SetValue(chromedp.ID("w-context"), mine),
		chromedp.Click(chromedp.CSS(`form button[type="submit"]`)))
	p.waitFor("the note page", `document.querySelector('#note-content')?.textContent.endsWith('in Portland')`)
	// waitEnriched waits for the workers to enrich the note past version.
	waitEnriched := func(version int) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			got, err := e.mem.Get(context.Background(), "a", n.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Enrichment.State == amem.EnrichDone && got.Version > version {
				n = got
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("note not enriched past version %d in 60 s: %+v", version, got)
			}
		}
	}
	waitEnriched(n.Version + 1) // the edit, then its enrichment
	if n.Context != mine || !n.CallerContext {
		t.Fatalf("after the edit's enrichment: context %q, the user's: %v", n.Context, n.CallerContext)
	}
	p.goTo("#/note/" + n.ID + "?again")
	p.waitFor("the mark", `document.querySelector('#yours-context') !== null && document.querySelector('#yours-keywords') === null`)

	p.do(chromedp.Click(chromedp.CSS(`button.give-back[data-attr="context"]`)))
	waitEnriched(n.Version + 1)
	if n.Context == mine || n.CallerContext {
		t.Fatalf("after giving it back: context %q, the user's: %v", n.Context, n.CallerContext)
	}
	p.waitFor("the mark gone", `document.querySelector('#note-content') !== null && document.querySelector('#yours-context') === null`)
}
