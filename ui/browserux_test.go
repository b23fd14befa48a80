package ui_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/amem-dev/amem"
)

// The UI as a person meets it (issue 29, item 4): each subtest here
// fails with the defect it names back.

// addAt adds a note with an event time and tags, unenriched (the env
// has no curator).
func (e *uiEnv) addAt(t *testing.T, ns, content string, at time.Time, tags ...string) amem.Note {
	t.Helper()
	n, err := e.mem.Add(context.Background(), amem.AddRequest{Namespace: ns, Content: content, EventTime: at, Tags: tags, Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (e *uiEnv) link(t *testing.T, ns string, pairs ...[2]string) {
	t.Helper()
	err := e.store.Update(context.Background(), func(tx amem.Tx) error {
		for i, p := range pairs {
			l := amem.Link{Source: p[0], Target: p[1], Strength: 0.4 + float64(i%5)/10, Reason: "related", CreatedAt: time.Now()}
			if err := tx.PutLink(ns, l); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// setTimezone makes the page's local time zone tz.
func (p *page) setTimezone(tz string) {
	p.t.Helper()
	if _, err := chromedp.Call(p.ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: tz}); err != nil {
		p.t.Fatal(err)
	}
}

// setWidth narrows the viewport to w CSS pixels (0: back to the window's).
func (p *page) setWidth(w int64) {
	p.t.Helper()
	var err error
	if w == 0 {
		_, err = chromedp.Call(p.ctx, emulation.ClearDeviceMetricsOverride, cdp.Empty{})
	} else {
		_, err = chromedp.Call(p.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: w, Height: 900, DeviceScaleFactor: 1})
	}
	if err != nil {
		p.t.Fatal(err)
	}
}

func date(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestBrowserUX(t *testing.T) {
	e := newUIEnv(t, false)
	ctx := context.Background()
	const longTag = "adoption-agencies-and-support-groups-nearby"
	// Created in this order; dated out of it.
	mid := e.addAt(t, "ux", "Caroline is researching adoption agencies", date("2025-01-10T09:00:00Z"), "adoption", longTag)
	old := e.addAt(t, "ux", "Caroline went to an LGBTQ support group", date("2024-06-01T18:30:00Z"), "support")
	newest := e.addAt(t, "ux", "Melanie painted a sunrise over the lake", date("2025-06-01T07:45:00Z"), "art")
	e.link(t, "ux", [2]string{mid.ID, old.ID}, [2]string{newest.ID, mid.ID})

	p := newPage(t, e.url)
	p.setTimezone("Europe/Paris")

	t.Run("sign-in page", func(t *testing.T) {
		p.t = t
		p.do(chromedp.Navigate(p.base+"/ui/"), chromedp.WaitVisible(chromedp.ID("key")))
		// hidden must win over .session's display: flex.
		if shown := eval[[]string](p, `['session', 'nav'].filter(id => getComputedStyle(document.getElementById(id)).display !== 'none')`); len(shown) > 0 {
			t.Errorf("the sign-in page shows %v", shown)
		}
		if got := p.text("#first-run"); !strings.Contains(got, "amem keys create --namespace") {
			t.Errorf("the sign-in page says nothing of how to get a key: %q", got)
		}
		p.do(chromedp.SendKeys(chromedp.ID("key"), "amem_wrong"), chromedp.Click(chromedp.CSS(`form button[type="submit"]`)))
		p.waitFor("the refusal", `document.getElementById('signin-error').textContent.includes('refused')`)
		if n := strings.Count(p.bodyText(), "refused"); n != 1 {
			t.Errorf("the refusal is said %d times, want once", n)
		}
	})

	p.signIn(e.key(t, "ux"))

	t.Run("the list is in event-time order", func(t *testing.T) {
		p.t = t
		rows := `[...document.querySelectorAll('#notes tbody tr')].map(r => r.dataset.id).join(' ')`
		want := strings.Join([]string{newest.ID, mid.ID, old.ID}, " ")
		p.waitFor("newest event first", rows+` === `+js(want))
		if got := p.text("#notes thead"); !strings.Contains(got, "Event time") {
			t.Errorf("the list's columns: %q, want an Event time column", got)
		}
		p.goTo("#/notes?order=oldest_event")
		p.waitFor("oldest event first", rows+` === `+js(old.ID+" "+mid.ID+" "+newest.ID))
		p.goTo("#/notes?order=newest")
		p.waitFor("recently added first", rows+` === `+js(newest.ID+" "+old.ID+" "+mid.ID))
		// In the order they were added, the list shows when.
		if got := p.text("#notes thead"); !strings.Contains(got, "Added") {
			t.Errorf("in the order added, the list's columns: %q, want an Added column", got)
		}
		p.goTo("#/notes")
		p.waitFor("the list", rows+` === `+js(want))
	})

	t.Run("compact filter bar", func(t *testing.T) {
		p.t = t
		for _, route := range []string{"#/notes", "#/search"} {
			p.goTo(route)
			p.waitFor("the filters", `document.querySelector('form[role="search"]') !== null`)
			h := eval[float64](p, `document.querySelector('form[role="search"]').getBoundingClientRect().height`)
			if vh := eval[float64](p, `innerHeight`); h > 0.15*vh {
				t.Errorf("%s: the filter form is %.0f px high, %.0f%% of the window", route, h, 100*h/vh)
			}
		}
	})

	t.Run("humane dates", func(t *testing.T) {
		p.t = t
		p.goTo("#/notes")
		p.waitFor("the list", `document.querySelector('#notes time') !== null`)
		got := eval[[]string](p, `(() => { const t = document.querySelector('#notes tbody tr time'); return [t.textContent, t.title]; })()`)
		// 07:45 UTC is 09:45 in Paris in June.
		if got[0] != "1 Jun 2025, 09:45" || got[1] != "2025-06-01T07:45:00.000Z" {
			t.Errorf("the newest note's time reads %q (title %q), want \"1 Jun 2025, 09:45\" with the ISO time as title", got[0], got[1])
		}
		if wraps := eval[int](p, `[...document.querySelectorAll('#notes time')].filter(t => t.getClientRects().length > 1).length`); wraps > 0 {
			t.Errorf("%d times wrap", wraps)
		}
		now := e.add(t, "ux", "a note from just now", nil)
		p.goTo("#/note/" + now.ID)
		p.waitFor("the note", `document.querySelector('#history') !== null`)
		body := p.bodyText()
		if strings.Contains(body, "0001-01-01") || strings.Contains(body, "T00:00:00") {
			t.Errorf("the note page shows a raw or zero time:\n%.1500s", body)
		}
		if !strings.Contains(body, "just now") && !strings.Contains(body, "minute ago") {
			t.Errorf("a note added now is not dated relatively:\n%.1500s", body)
		}
		if err := e.mem.Delete(ctx, "ux", now.ID); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("tag pills break between tags only", func(t *testing.T) {
		p.t = t
		// On a narrow window, where the tags' column is narrow.
		p.setWidth(700)
		defer p.setWidth(0)
		p.goTo("#/notes")
		p.waitFor("the list", `document.querySelector('#notes .tag') !== null`)
		broken := eval[[]string](p, `[...document.querySelectorAll('#notes .tag')]
			.filter(t => t.getClientRects().length > 1 || t.getBoundingClientRect().height > 2 * parseFloat(getComputedStyle(t).fontSize) + 4)
			.map(t => t.textContent)`)
		if len(broken) > 0 {
			t.Errorf("tag pills broken across lines: %q", broken)
		}
		if title := eval[string](p, `[...document.querySelectorAll('#notes .tag')].find(t => t.textContent === `+js(longTag)+`)?.title ?? ''`); title != longTag {
			t.Errorf("a long tag cut short keeps no title with it whole: %q", title)
		}
	})

	t.Run("add and edit the event time, in the browser's zone", func(t *testing.T) {
		p.t = t
		p.do(chromedp.Click(chromedp.CSS(`#nav a[href="#/new"]`)),
			chromedp.WaitVisible(chromedp.ID("w-time")),
			chromedp.SendKeys(chromedp.ID("w-content"), "Caroline's adoption interview"),
			chromedp.SetValue(chromedp.ID("w-time"), "2023-03-05T14:30"),
			chromedp.Click(chromedp.CSS(`form button[type="submit"]`)))
		p.waitFor("the new note", `document.querySelector('#note-content')?.textContent === "Caroline's adoption interview"`)
		id := eval[string](p, `decodeURIComponent(location.hash.split('/')[2])`)
		n, err := e.mem.Get(ctx, "ux", id)
		if err != nil {
			t.Fatal(err)
		}
		// 14:30 in Paris in March (UTC+1).
		if want := date("2023-03-05T13:30:00Z"); !n.EventTime.Equal(want) {
			t.Errorf("event time %v, want %v", n.EventTime, want)
		}
		p.do(chromedp.Click(chromedp.CSS(`a[href^="#/edit/"]`)), chromedp.WaitVisible(chromedp.ID("w-time")))
		if v := eval[string](p, `document.getElementById('w-time').value`); v != "2023-03-05T14:30" {
			t.Errorf("the edit form shows the time as %q, want 2023-03-05T14:30", v)
		}
		p.do(chromedp.SetValue(chromedp.ID("w-time"), "2023-07-01T09:15"), chromedp.Click(chromedp.CSS(`form button[type="submit"]`)))
		p.waitFor("the saved note", `location.hash.startsWith('#/note/') && document.querySelector('#history section') !== null`)
		p.waitFor("the edit saved", `[...document.querySelectorAll('#history section')].length >= 2`)
		if n, err = e.mem.Get(ctx, "ux", id); err != nil {
			t.Fatal(err)
		}
		if want := date("2023-07-01T07:15:00Z"); !n.EventTime.Equal(want) { // UTC+2 in July
			t.Errorf("edited event time %v, want %v", n.EventTime, want)
		}

		// A time with seconds and a fraction is kept when only the
		// content changes (the field holds neither exactly).
		exact := e.addAt(t, "ux", "exact time", date("2024-01-01T10:00:30.5Z"))
		p.goTo("#/edit/" + exact.ID)
		p.do(chromedp.WaitVisible(chromedp.ID("w-content")), chromedp.SetValue(chromedp.ID("w-content"), "exact time, edited"),
			chromedp.Click(chromedp.CSS(`form button[type="submit"]`)))
		p.waitFor("the saved note", `document.querySelector('#note-content')?.textContent === 'exact time, edited'`)
		if n, err = e.mem.Get(ctx, "ux", exact.ID); err != nil {
			t.Fatal(err)
		}
		if !n.EventTime.Equal(exact.EventTime) {
			t.Errorf("an edit of the content moved the event time from %v to %v", exact.EventTime, n.EventTime)
		}
	})

	t.Run("a status message stays on its page", func(t *testing.T) {
		p.t = t
		p.goTo("#/new")
		p.do(chromedp.WaitVisible(chromedp.ID("w-meta")),
			chromedp.SendKeys(chromedp.ID("w-content"), "x"),
			chromedp.SendKeys(chromedp.ID("w-meta"), "novalue"),
			chromedp.Click(chromedp.CSS(`form button[type="submit"]`)))
		p.waitFor("the error", `document.getElementById('status').textContent.includes('not key=value')`)
		time.Sleep(1600 * time.Millisecond)
		p.do(chromedp.Click(chromedp.CSS(`#nav a[href="#/stats"]`)))
		p.waitFor("the stats", `document.querySelector('#stats-summary') !== null`)
		if got := p.text("#status"); got != "" {
			t.Errorf("on the next page the status still says %q", got)
		}
	})

	t.Run("an error is said once", func(t *testing.T) {
		p.t = t
		p.goTo("#/note/01ARZ3NDEKTSV4RRFFQ69G5FAV")
		p.waitFor("the error", `document.getElementById('view-error') !== null`)
		if n := strings.Count(p.bodyText(), "not found"); n != 1 {
			t.Errorf("the error is said %d times:\n%s", n, p.bodyText())
		}
	})

	t.Run("graph: labels, legend, fit, focus, no warnings", func(t *testing.T) {
		p.t = t
		before := p.consoleCount()
		p.goTo("#/graph")
		p.waitFor("the graph", `document.querySelector('#graph-count')?.textContent.includes('notes')`)
		cy := `document.getElementById('cy').cy`
		labels := eval[[]string](p, cy+`.nodes().map(n => n.style('label'))`)
		for _, l := range labels {
			if l == "" || len([]rune(l)) > 28 {
				t.Errorf("node label %q: want a short label on every node", l)
			}
		}
		legend := p.text("#g-legend")
		for _, tag := range []string{"adoption", "support", "art"} {
			if !strings.Contains(legend, tag) {
				t.Errorf("the legend %q does not name the colour of tag %q", legend, tag)
			}
		}
		if n := eval[int](p, `[...document.querySelectorAll('#g-legend .swatch')].filter(s => getComputedStyle(s).backgroundColor !== 'rgba(0, 0, 0, 0)').length`); n < 3 {
			t.Errorf("%d coloured swatches in the legend", n)
		}
		fill := eval[[]float64](p, `(() => { const c = `+cy+`, b = c.elements().renderedBoundingBox(); return [b.w / c.width(), b.h / c.height()]; })()`)
		if fill[0] < 0.5 && fill[1] < 0.5 {
			t.Errorf("the graph fills %.0f%% of the canvas' width and %.0f%% of its height", 100*fill[0], 100*fill[1])
		}
		// Selecting a note brings it and its neighbours into the canvas'
		// view; the page does not scroll.
		scroll := eval[float64](p, `scrollY`)
		xy := eval[[]float64](p, `(() => { const c = document.getElementById('cy'); const p = c.cy.getElementById(`+js(mid.ID)+`).renderedPosition(); const r = c.getBoundingClientRect(); return [r.left + p.x, r.top + p.y]; })()`)
		p.do(chromedp.MouseClickXY(xy[0], xy[1]))
		p.waitFor("the selection", `document.querySelector('#g-content')?.textContent === `+js(mid.Content)+` && !`+cy+`.animated()`)
		if after := eval[float64](p, `scrollY`); after != scroll {
			t.Errorf("selecting a note scrolled the page from %v to %v", scroll, after)
		}
		inView := eval[bool](p, `(() => { const c = `+cy+`, r = document.getElementById('cy').getBoundingClientRect();
			const b = c.getElementById(`+js(mid.ID)+`).closedNeighborhood().renderedBoundingBox();
			return b.x1 >= -1 && b.y1 >= -1 && b.x2 <= c.width() + 1 && b.y2 <= c.height() + 1 && r.bottom <= innerHeight + 1; })()`)
		if !inView {
			t.Error("the selected note's neighbourhood is not all in view")
		}
		if n := p.consoleCount() - before; n != 0 {
			t.Errorf("drawing the graph gave %d console warnings or errors", n)
		}
	})
}

// TestBrowserScreenshots takes a screenshot of every screen, at
// 1280x800: into docs/screenshots with AMEM_UI_SCREENSHOTS=docs (to be
// looked at and committed), else into a temporary directory, so that
// every run still drives each screen.
func TestBrowserScreenshots(t *testing.T) {
	dir := t.TempDir()
	if os.Getenv("AMEM_UI_SCREENSHOTS") == "docs" {
		dir = filepath.Join("..", "docs", "screenshots")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e := newUIEnv(t, false)
	now := time.Now().UTC()
	day := func(d int, hour int) time.Time {
		return time.Date(now.Year(), now.Month(), now.Day(), hour, 5, 0, 0, time.UTC).AddDate(0, 0, -d)
	}
	type seed struct {
		content string
		days    int
		tags    []string
	}
	var ids []string
	for i, s := range []seed{
		{"Caroline went to an LGBTQ support group on Sunday; she said it was powerful to hear the others' stories.", 40, []string{"support", "community"}},
		{"Caroline is researching adoption agencies after the support group, and wants to adopt as a single parent.", 35, []string{"adoption", "family"}},
		{"Melanie painted a sunrise over the lake last summer and wants to hang it in the living room.", 30, []string{"art", "home"}},
		{"Melanie signed up for pottery classes on Thursday evenings.", 21, []string{"art", "hobbies"}},
		{"Caroline's counselling course starts in September; she hopes to work with trans youth.", 14, []string{"career", "community"}},
		{"Melanie and her kids went camping in the mountains for a long weekend.", 9, []string{"family", "outdoors"}},
		{"Caroline has an interview with an adoption agency next Tuesday at 10:00.", 3, []string{"adoption"}},
		{"Melanie ran a charity 5K for mental health awareness.", 1, []string{"health", "community"}},
		{"User prefers short answers with the dates written out in full.", 0, []string{"preferences"}},
		{"Melanie moved her pottery classes from Thursday evenings to Saturday mornings.", 6, []string{"art", "hobbies"}},
	} {
		at := day(s.days, 9+i)
		if s.days == 0 {
			at = now.Add(-20 * time.Minute)
		}
		ids = append(ids, e.addAt(t, "caroline-and-melanie", s.content, at, s.tags...).ID)
	}
	e.link(t, "caroline-and-melanie", [2]string{ids[1], ids[0]}, [2]string{ids[6], ids[1]}, [2]string{ids[3], ids[2]},
		[2]string{ids[4], ids[0]}, [2]string{ids[5], ids[2]}, [2]string{ids[7], ids[4]}, [2]string{ids[6], ids[0]}, [2]string{ids[5], ids[3]})
	ctx := context.Background()
	tags := []string{"adoption", "family", "interview"}
	reason := "the interview is confirmed"
	content := "Caroline has an interview with an adoption agency next Tuesday at 10:00; her friend Melanie will drive her."
	if _, err := e.mem.Update(ctx, "caroline-and-melanie", ids[6], amem.UpdateRequest{Content: &content, Tags: &tags, Reason: reason}); err != nil {
		t.Fatal(err)
	}
	// The pottery classes moved: the Thursday note is superseded.
	if _, err := e.mem.Update(ctx, "caroline-and-melanie", ids[3], amem.UpdateRequest{Validity: &amem.Validity{SupersededBy: ids[9]},
		Reason: "Melanie said the Thursday class was cancelled"}); err != nil {
		t.Fatal(err)
	}

	// One note deleted into the trash, for the Trash screen.
	gone := e.addAt(t, "caroline-and-melanie", "Melanie's old gym membership renews every January.", day(60, 8), "health")
	if err := e.mem.Delete(ctx, "caroline-and-melanie", gone.ID); err != nil {
		t.Fatal(err)
	}

	p := newPage(t, e.url)
	if _, err := chromedp.Call(p.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 1280, Height: 800, DeviceScaleFactor: 1}); err != nil {
		t.Fatal(err)
	}
	shot := func(name string) {
		t.Helper()
		// Fonts and the graph's last frame settle first.
		time.Sleep(300 * time.Millisecond)
		png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".png")
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d KB", path, len(png)/1024)
	}
	p.do(chromedp.Navigate(p.base+"/ui/"), chromedp.WaitVisible(chromedp.ID("key")))
	shot("sign-in")
	p.signIn(e.key(t, "caroline-and-melanie"))
	p.waitFor("the list", `document.querySelectorAll('#notes tbody tr').length === 10`)
	eval[chromedp.Void](p, `document.getElementById('status').textContent = ''`)
	shot("notes")
	p.goTo("#/note/" + ids[6])
	p.waitFor("the note", `document.querySelector('#history section') !== null`)
	shot("note")
	eval[chromedp.Void](p, `document.getElementById('history').scrollIntoView()`)
	shot("history")
	p.goTo("#/new")
	p.do(chromedp.WaitVisible(chromedp.ID("w-content")))
	shot("add")
	p.goTo("#/edit/" + ids[6])
	p.do(chromedp.WaitVisible(chromedp.ID("w-time")))
	shot("edit")
	p.goTo("#/search?q=adoption+interview&mode=hybrid&k=5")
	p.waitFor("the results", `document.querySelector('#direct tbody tr') !== null`)
	shot("search")
	p.goTo("#/note/" + ids[3])
	p.waitFor("the superseded note", `document.querySelector('#validity-banner') !== null && document.querySelector('#history section') !== null`)
	shot("note-superseded")
	p.goTo("#/search?q=pottery+classes+Thursday&mode=hybrid&k=5")
	p.waitFor("the results", `document.querySelector('#direct .pill.superseded') !== null`)
	shot("search-superseded")
	p.goTo("#/graph")
	p.waitFor("the graph", `document.querySelector('#graph-count')?.textContent.startsWith('10 notes')`)
	shot("graph")
	xy := eval[[]float64](p, `(() => { const c = document.getElementById('cy'); const p = c.cy.getElementById(`+js(ids[1])+`).renderedPosition(); const r = c.getBoundingClientRect(); return [r.left + p.x, r.top + p.y]; })()`)
	p.do(chromedp.MouseClickXY(xy[0], xy[1]))
	p.waitFor("the selection", `document.querySelector('#g-content') !== null && !document.getElementById('cy').cy.animated()`)
	shot("graph-selected")
	p.goTo("#/stats")
	p.waitFor("the stats", `document.querySelector('#stats-summary') !== null`)
	shot("stats")
	p.goTo("#/trash")
	p.waitFor("the trash", `document.querySelectorAll('#trash tbody tr').length === 1`)
	shot("trash")
	p.goTo("#/note/01ARZ3NDEKTSV4RRFFQ69G5FAV")
	p.waitFor("the error", `document.getElementById('view-error') !== null`)
	shot("not-found")
	p.goTo("#/notes?tag=nothing-has-this")
	p.waitFor("the empty list", `document.getElementById('no-notes') !== null`)
	shot("no-match")
	// An admin key opens any namespace, one with no notes too.
	p.do(chromedp.Click(chromedp.ID("sign-out")), chromedp.WaitVisible(chromedp.ID("key")))
	p.signIn(e.key(t))
	p.do(chromedp.SendKeys(chromedp.ID("ns-other"), "new-team"), chromedp.Click(chromedp.CSS(`.ns-other button`)))
	p.waitFor("the empty namespace", `document.getElementById('no-notes') !== null && document.getElementById('ns-select').value === 'new-team'`)
	eval[chromedp.Void](p, `document.getElementById('status').textContent = ''`)
	shot("empty-namespace")
	p.do(chromedp.SetValue(chromedp.ID("ns-select"), "caroline-and-melanie"))
	eval[chromedp.Void](p, `document.getElementById('ns-select').dispatchEvent(new Event('change'))`)
	if _, err := chromedp.Call(p.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}); err != nil {
		t.Fatal(err)
	}
	p.goTo("#/notes")
	p.waitFor("the list", `document.querySelectorAll('#notes tbody tr').length === 10`)
	shot("notes-dark")
}
