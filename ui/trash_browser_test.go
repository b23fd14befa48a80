package ui_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/chromedp/chromedp"
)

// The trash in the browser: Undo right after a delete brings the note
// back; the Trash view lists deleted notes as text, restores one and
// empties the rest; another namespace's trash never shows.
func TestBrowserTrash(t *testing.T) {
	e := newUIEnv(t, false)
	ctx := context.Background()
	keeper := e.add(t, "a", "the lighthouse keeper retires in June", nil)
	hostile := e.add(t, "a", imgXSS, map[string]string{"source": scriptXSS})
	secret := e.add(t, "b", "the secret plans of namespace b", nil)
	for _, n := range []amem.Note{hostile, secret} {
		if err := e.mem.Delete(ctx, n.Namespace, n.ID); err != nil {
			t.Fatal(err)
		}
	}
	live := func(id string) bool {
		t.Helper()
		_, err := e.mem.Get(ctx, "a", id)
		if err != nil && !errors.Is(err, amem.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil
	}
	p := newPage(t, e.url)
	p.signIn(e.key(t, "a"))

	deleteKeeper := func() {
		t.Helper()
		p.goTo("#/note/" + keeper.ID)
		p.waitFor("the note", `document.querySelector('#note-content')?.textContent === `+js(keeper.Content))
		p.do(chromedp.Click(chromedp.ID("delete")),
			chromedp.WaitVisible(chromedp.ID("confirm-ok")),
			chromedp.Click(chromedp.ID("confirm-ok")))
		p.waitFor("Undo on the list", `location.hash === '#/notes' && document.querySelector('#status #undo-delete') !== null`)
		if live(keeper.ID) {
			t.Fatal("the note is still live after the delete")
		}
	}
	deleteKeeper()
	p.do(chromedp.Click(chromedp.ID("undo-delete")))
	p.waitFor("the note again", `location.hash === '#/note/`+keeper.ID+`' && document.querySelector('#note-content')?.textContent === `+js(keeper.Content))
	if !live(keeper.ID) {
		t.Fatal("Undo did not restore the note")
	}
	p.waitFor("the restore in the history", `[...document.querySelectorAll('#history h3')].some(h => h.textContent.includes('restore'))`)

	deleteKeeper()
	p.do(chromedp.Click(chromedp.CSS(`#nav a[href="#/trash"]`)))
	p.waitFor("the trash", `document.querySelectorAll('#trash tbody tr').length === 2`)
	p.noMarkup("trash")
	if got := p.text(`#trash tr[data-id="` + hostile.ID + `"] td`); got != imgXSS {
		t.Errorf("the hostile note shows as %q, want its text", got)
	}
	if body := p.bodyText(); !containsAll(body, keeper.Content) || containsAll(body, secret.Content) {
		t.Errorf("the trash of a shows %.500q; want a's notes and none of b's", body)
	}
	p.do(chromedp.Click(chromedp.CSS(`button[data-restore="` + keeper.ID + `"]`)))
	p.waitFor("the restored note", `location.hash === '#/note/`+keeper.ID+`' && document.querySelector('#note-content') !== null`)
	if !live(keeper.ID) {
		t.Fatal("Restore did not bring the note back")
	}

	p.goTo("#/trash")
	p.waitFor("the trash without the restored note", `document.querySelectorAll('#trash tbody tr').length === 1`)
	p.do(chromedp.Click(chromedp.ID("empty-trash")),
		chromedp.WaitVisible(chromedp.ID("confirm-ok")),
		chromedp.Click(chromedp.ID("confirm-ok")))
	p.waitFor("an empty trash", `document.querySelector('#no-trash') !== null`)
	if _, err := e.mem.Trash().Restore(ctx, "a", hostile.ID); !errors.Is(err, amem.ErrNotFound) {
		t.Errorf("restore after emptying: %v, want ErrNotFound", err)
	}
	if l, err := e.mem.Trash().List(ctx, "b", amem.TrashQuery{}); err != nil || len(l) != 1 {
		t.Errorf("b's trash after a's was emptied: %v, %v", l, err)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
