package ui_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/mock"
)

// Supersession in the browser (issue 30): the note page says since when
// a note is no longer true and which note superseded it, and makes it
// current again; search and the list mark it, and search answers as of a
// time or without it; the graph draws supersedes links dashed with an
// arrow from the newer note and fades the old one.
func TestBrowserSupersede(t *testing.T) {
	e := newUIEnv(t, false)
	ctx := context.Background()
	const ns = "s"
	old := e.addAt(t, ns, "Dentist appointment at 3pm on Friday", date("2026-11-02T09:00:00Z"), "health")
	newer := e.addAt(t, ns, "The dentist appointment moved to 4pm on Friday", date("2026-11-20T09:00:00Z"), "health")
	other := e.addAt(t, ns, "Melanie painted a sunrise over the lake", date("2026-11-05T09:00:00Z"), "art")
	e.link(t, ns, [2]string{newer.ID, other.ID})
	const why = "the clinic called to move it"
	supersede := func() {
		t.Helper()
		if _, err := e.mem.Update(ctx, ns, old.ID, amem.UpdateRequest{Validity: &amem.Validity{SupersededBy: newer.ID}, Reason: why}); err != nil {
			t.Fatal(err)
		}
	}
	supersede()

	p := newPage(t, e.url)
	// The as-of time is typed in Paris and sent in UTC.
	p.setTimezone("Europe/Paris")
	p.signIn(e.key(t, ns))

	t.Run("note page: banner, link, make current again", func(t *testing.T) {
		p.t = t
		p.goTo("#/note/" + old.ID)
		p.waitFor("the banner", `document.querySelector('#validity-banner') !== null && document.querySelector('#history section') !== null`)
		head := p.text("#validity-banner .banner-head")
		if !strings.HasPrefix(head, "No longer true since 20 Nov 2026") || !strings.Contains(head, "superseded by "+newer.Content) {
			t.Errorf("the banner says %q", head)
		}
		if got := eval[string](p, `document.getElementById('superseded-by').getAttribute('href')`); got != "#/note/"+newer.ID {
			t.Errorf("the banner links to %q, want the newer note", got)
		}
		if got := p.text("#validity-why"); got != "Why: "+why {
			t.Errorf("the banner's reason: %q", got)
		}
		// The history names the fields for people, links the newer note and
		// never shows Go's zero time.
		hist := p.text("#history")
		for _, want := range []string{"True until", "Superseded by", newer.ID} {
			if !strings.Contains(hist, want) {
				t.Errorf("the history lacks %q: %.600s", want, hist)
			}
		}
		if strings.Contains(hist, "0001-01-01") || strings.Contains(hist, "valid_until") {
			t.Errorf("the history shows a raw field or the zero time: %.600s", hist)
		}
		if n := eval[int](p, `document.querySelectorAll('#history ins a[href="#/note/`+newer.ID+`"]').length`); n != 1 {
			t.Errorf("the history links the newer note %d times, want once", n)
		}

		p.do(chromedp.Click(chromedp.ID("superseded-by")))
		p.waitFor("the newer note", `document.querySelector('#note-content')?.textContent === `+js(newer.Content))
		if got := p.text("#supersedes-banner"); !strings.HasPrefix(got, "Supersedes "+old.Content) {
			t.Errorf("the newer note's banner says %q", got)
		}
		if eval[bool](p, `document.querySelector('#validity-banner') !== null`) {
			t.Error("the newer note says it is no longer true")
		}
		p.do(chromedp.Click(chromedp.CSS(`#supersedes-banner a[href="#/note/` + old.ID + `"]`)))
		p.waitFor("the old note", `document.querySelector('#note-content')?.textContent === `+js(old.Content)+` && document.querySelector('#make-current') !== null`)
		p.do(chromedp.Click(chromedp.ID("make-current")))
		p.waitFor("the note current again", `document.querySelector('#note-content') !== null && document.querySelector('#validity-banner') === null &&
			document.querySelector('#history')?.textContent.includes('current again')`)
		n, err := e.mem.Get(ctx, ns, old.ID)
		if err != nil {
			t.Fatal(err)
		}
		if n.SupersededBy != "" || !n.ValidUntil.IsZero() || !n.CallerValidity {
			t.Errorf("after Make current again: superseded by %q, valid until %v, the caller's: %v", n.SupersededBy, n.ValidUntil, n.CallerValidity)
		}
		p.goTo("#/note/" + newer.ID)
		p.waitFor("the newer note", `document.querySelector('#note-content')?.textContent === `+js(newer.Content))
		if eval[bool](p, `document.querySelector('#supersedes-banner') !== null`) {
			t.Error("the newer note still says it supersedes the old one")
		}
	})

	supersede()
	rows := `[...document.querySelectorAll('#direct tbody tr')].map(r => r.dataset.id).join(' ')`

	t.Run("search and the list mark it; as of and hide", func(t *testing.T) {
		p.t = t
		p.goTo("#/search?q=dentist+appointment+Friday&mode=lexical&k=10")
		p.waitFor("both hits, the newer first", rows+` === `+js(newer.ID+" "+old.ID))
		pill := `document.querySelector('#direct tr[data-id="` + old.ID + `"] a.pill.superseded')`
		if got := eval[string](p, pill+`?.getAttribute('href') ?? ''`); got != "#/note/"+newer.ID {
			t.Errorf("the old hit's pill links to %q, want the newer note", got)
		}
		if eval[bool](p, `document.querySelector('#direct tr[data-id="`+newer.ID+`"] .pill') !== null`) {
			t.Error("the newer hit is marked superseded")
		}

		// As of 10 Nov, 12:00 in Paris: the newer note was not said yet,
		// and the old one was still true.
		p.do(chromedp.Click(chromedp.CSS("#s-more summary")), chromedp.SetValue(chromedp.ID("s-asof"), "2026-11-10T12:00"),
			chromedp.Click(chromedp.CSS(`form[role="search"] button[type="submit"]`)))
		p.waitFor("the old note alone, unmarked", rows+` === `+js(old.ID)+` && document.querySelector('#direct .pill') === null`)
		if h := eval[string](p, `location.hash`); !strings.Contains(h, "as_of=2026-11-10T11%3A00%3A00.000Z") {
			t.Errorf("the route %q lacks the as-of time in UTC", h)
		}
		if got := eval[string](p, `document.getElementById('s-asof').value`); got != "2026-11-10T12:00" {
			t.Errorf("the as-of field shows %q after the search", got)
		}
		if got := p.text("#s-more summary"); got != "More (1)" {
			t.Errorf("the fold holding the as-of time reads %q, want More (1)", got)
		}
		if got := p.text("#as-of-note"); !strings.Contains(got, "10 Nov 2026") {
			t.Errorf("the page does not say which time it answers for: %q", got)
		}

		// Now, without the notes no longer true.
		p.do(chromedp.SetValue(chromedp.ID("s-asof"), ""), chromedp.Click(chromedp.ID("s-hide")),
			chromedp.Click(chromedp.CSS(`form[role="search"] button[type="submit"]`)))
		p.waitFor("the newer note alone", rows+` === `+js(newer.ID))
		if h := eval[string](p, `location.hash`); !strings.Contains(h, "exclude_superseded=true") || strings.Contains(h, "as_of") {
			t.Errorf("the route %q, want exclude_superseded and no as_of", h)
		}
		if !eval[bool](p, `document.getElementById('s-hide').checked`) {
			t.Error("Hide superseded is unchecked after the search")
		}

		p.goTo("#/notes")
		p.waitFor("the list", `document.querySelectorAll('#notes tbody tr').length === 3`)
		if got := eval[string](p, `document.querySelector('#notes tr[data-id="`+old.ID+`"] a.pill.superseded')?.getAttribute('href') ?? ''`); got != "#/note/"+newer.ID {
			t.Errorf("the list's pill for the old note links to %q", got)
		}
		if n := eval[int](p, `document.querySelectorAll('#notes .pill.superseded').length`); n != 1 {
			t.Errorf("%d notes marked superseded in the list, want 1", n)
		}
	})

	t.Run("graph", func(t *testing.T) {
		p.t = t
		p.goTo("#/graph")
		p.waitFor("the graph", `document.querySelector('#graph-count')?.textContent.startsWith('3 notes, 2 links')`)
		edge := `document.getElementById('cy').cy.getElementById(` + js(newer.ID+">"+old.ID) + `)`
		got := eval[[]string](p, `(() => { const e = `+edge+`; return [e.source().id(), e.target().id(), e.style('line-style'), e.style('target-arrow-shape')]; })()`)
		if want := []string{newer.ID, old.ID, "dashed", "triangle"}; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("the supersedes edge: %q, want %q", got, want)
		}
		related := eval[[]string](p, `(() => { const e = document.getElementById('cy').cy.getElementById(`+js(newer.ID+">"+other.ID)+`); return [e.style('line-style'), e.style('target-arrow-shape')]; })()`)
		if strings.Join(related, " ") != "solid none" {
			t.Errorf("a related edge: %q, want solid without an arrow", related)
		}
		opacity := eval[[]string](p, `['`+old.ID+`', '`+newer.ID+`'].map(id => document.getElementById('cy').cy.getElementById(id).style('opacity'))`)
		if opacity[0] == "1" || opacity[1] != "1" {
			t.Errorf("opacity of the old and the newer note: %q, want the old one faded", opacity)
		}
		if got := p.text("#g-legend"); !strings.Contains(got, "supersedes (newer → older)") || !strings.Contains(got, "faded: no longer true") {
			t.Errorf("the legend does not explain supersession: %q", got)
		}
	})
}

// TestBrowserSupersededByCurator: a supersession the curator decided
// shows its reason (without the history's "superseded by new note ID"
// prefix) and says the curator decided it.
func TestBrowserSupersededByCurator(t *testing.T) {
	const oldText, newText = "I'm allergic to penicillin.", "I'm not allergic to penicillin after all."
	cur := &mock.Superseder{Supersedes: func(n, old amem.Note) (string, bool) {
		return "the allergy was ruled out", n.Content == newText && old.Content == oldText
	}}
	e := newUIEnvWith(t, lexical.New(nil), cur)
	old := e.addAt(t, "med", oldText, date("2026-01-10T09:00:00Z"))
	newer := e.addAt(t, "med", newText, date("2026-03-15T09:00:00Z"))
	if got, err := e.mem.Get(context.Background(), "med", old.ID); err != nil || got.SupersededBy != newer.ID {
		t.Fatalf("the curator did not supersede the old note: %+v, %v", got, err)
	}
	p := newPage(t, e.url)
	p.signIn(e.key(t, "med"))
	p.goTo("#/note/" + old.ID)
	p.waitFor("the banner", `document.querySelector('#validity-banner') !== null`)
	if got := p.text("#validity-why"); got != "Why: the allergy was ruled out" {
		t.Errorf("the reason reads %q", got)
	}
	if got := p.text("#validity-banner"); !strings.Contains(got, "Decided by the curator") || !strings.Contains(got, "Make current again") {
		t.Errorf("the banner says %q", got)
	}
	if got := p.text("#links"); !strings.Contains(got, "supersedes") {
		t.Errorf("the links table does not name the supersedes link: %q", got)
	}
}
