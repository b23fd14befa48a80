package offline

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// dateLayout is how every date the curator writes reads: "8 May 2023", the
// form LoCoMo's answers and most people's notes use.
const dateLayout = "2 January 2006"

var months = map[string]time.Month{
	"january": time.January, "february": time.February, "march": time.March,
	"april": time.April, "may": time.May, "june": time.June, "july": time.July,
	"august": time.August, "september": time.September, "october": time.October,
	"november": time.November, "december": time.December,
	"jan": time.January, "feb": time.February, "mar": time.March, "apr": time.April,
	"jun": time.June, "jul": time.July, "aug": time.August, "sep": time.September,
	"sept": time.September, "oct": time.October, "nov": time.November, "dec": time.December,
}

var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday,
	"wednesday": time.Wednesday, "thursday": time.Thursday, "friday": time.Friday,
	"saturday": time.Saturday,
}

var smallNumbers = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "couple": 2, "few": 3,
}

// dateSpan is a date found in the text: tokens [start, end) and the
// phrase it becomes.
type dateSpan struct {
	start, end int
	text       string
	// exact: a day ("8 May 2023"), not a month, year or week.
	exact bool
}

// month returns the month a token names. Abbreviations and "May" count only
// when capitalised mid-sentence or next to a day number, so "may" the verb
// and "mar" the word stay words.
func month(t token, nextToNumber bool) (time.Month, bool) {
	m, ok := months[t.lower]
	if !ok {
		return 0, false
	}
	if nextToNumber {
		return m, true
	}
	if len(t.lower) <= 4 || t.lower == "march" {
		return m, t.capital && !t.sentStart
	}
	return m, t.capital
}

func dayNumber(t token) (int, bool) {
	s := t.lower
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		s = strings.TrimSuffix(s, suf)
	}
	d, err := strconv.Atoi(s)
	if err != nil || d < 1 || d > 31 {
		return 0, false
	}
	return d, true
}

func yearNumber(t token) (int, bool) {
	if len(t.lower) != 4 {
		return 0, false
	}
	y, err := strconv.Atoi(t.lower)
	if err != nil || y < 1900 || y > 2099 {
		return 0, false
	}
	return y, true
}

// findDates finds absolute dates ("8 May 2023", "May 8, 2023", "May 2023",
// "2023-05-08", "2023") and, when ref is set, resolves relative ones
// ("yesterday", "last week", "two years ago", "next Saturday") against it.
// Resolved dates matter because notes are read long after they were
// written: "yesterday" in a note is useless to a question about May 2023.
func findDates(toks []token, ref time.Time) []dateSpan {
	var out []dateSpan
	for i := 0; i < len(toks); {
		if s, ok := absoluteDate(toks, i); ok {
			out = append(out, s)
			i = s.end
			continue
		}
		if !ref.IsZero() {
			if s, ok := relativeDate(toks, i, ref); ok {
				out = append(out, s)
				i = s.end
				continue
			}
		}
		i++
	}
	return out
}

// absoluteDate reads the date written out at toks[i], if any. A comma may
// sit inside it ("May 8, 2023"), a sentence break may not.
func absoluteDate(toks []token, i int) (dateSpan, bool) {
	t := toks[i]
	at := func(k int) (token, bool) {
		if k < len(toks) && !toks[k].sentStart {
			return toks[k], true
		}
		return token{}, false
	}
	if t.number {
		if tm, err := time.Parse("2006-01-02", t.lower); err == nil {
			return dateSpan{i, i + 1, tm.Format(dateLayout), true}, true
		}
		if d, ok := dayNumber(t); ok {
			k := i + 1
			if n, ok := at(k); ok && n.lower == "of" {
				k++
			}
			if n, ok := at(k); ok {
				if m, ok := month(n, true); ok {
					if y, ok := at(k + 1); ok {
						if yy, ok := yearNumber(y); ok {
							return dateSpan{i, k + 2, fmt.Sprintf("%d %s %d", d, m, yy), true}, true
						}
					}
					return dateSpan{i, k + 1, fmt.Sprintf("%d %s", d, m), true}, true
				}
			}
		}
		if y, ok := yearNumber(t); ok {
			return dateSpan{i, i + 1, strconv.Itoa(y), false}, true
		}
		return dateSpan{}, false
	}
	next, hasNext := at(i + 1)
	nextIsNumber := hasNext && next.number
	m, ok := month(t, nextIsNumber)
	if !ok {
		return dateSpan{}, false
	}
	if nextIsNumber {
		if d, ok := dayNumber(next); ok && len(next.lower) <= 4 {
			if y, ok := at(i + 2); ok {
				if yy, ok := yearNumber(y); ok {
					return dateSpan{i, i + 3, fmt.Sprintf("%d %s %d", d, m, yy), true}, true
				}
			}
			return dateSpan{i, i + 2, fmt.Sprintf("%d %s", d, m), true}, true
		}
		if y, ok := yearNumber(next); ok {
			return dateSpan{i, i + 2, fmt.Sprintf("%s %d", m, y), false}, true
		}
	}
	return dateSpan{i, i + 1, m.String(), false}, true
}

// relativeDate resolves the relative expression starting at toks[i], if
// any, against ref's calendar day.
func relativeDate(toks []token, i int, ref time.Time) (dateSpan, bool) {
	day := func(off int) string { return ref.AddDate(0, 0, off).Format(dateLayout) }
	refDay := ref.Format(dateLayout)
	w := toks[i].lower
	next := ""
	if i+1 < len(toks) && !toks[i+1].broken {
		next = toks[i+1].lower
	}
	switch w {
	case "yesterday":
		return dateSpan{i, i + 1, day(-1), true}, true
	case "today", "tonight":
		return dateSpan{i, i + 1, refDay, true}, true
	case "tomorrow":
		return dateSpan{i, i + 1, day(1), true}, true
	case "last", "next", "this", "past", "coming":
		dir := 1
		switch w {
		case "last", "past":
			dir = -1
		case "this":
			dir = 0
		}
		switch next {
		case "night":
			if dir == -1 {
				return dateSpan{i, i + 2, day(-1), true}, true
			}
			if dir == 0 {
				return dateSpan{i, i + 2, refDay, true}, true
			}
		case "morning", "afternoon", "evening":
			if dir == 0 {
				return dateSpan{i, i + 2, refDay, true}, true
			}
		case "week", "weekend":
			switch dir {
			case -1:
				return dateSpan{i, i + 2, "the " + next + " before " + refDay, false}, true
			case 1:
				return dateSpan{i, i + 2, "the " + next + " after " + refDay, false}, true
			default:
				return dateSpan{i, i + 2, "the " + next + " of " + refDay, false}, true
			}
		case "month":
			return dateSpan{i, i + 2, monthOf(ref, dir), false}, true
		case "year":
			return dateSpan{i, i + 2, strconv.Itoa(ref.Year() + dir), false}, true
		}
		if wd, ok := weekdays[next]; ok && dir != 0 {
			rel := "before"
			if dir > 0 {
				rel = "after"
			}
			return dateSpan{i, i + 2, "the " + wd.String() + " " + rel + " " + refDay, false}, true
		}
	}
	// "two weeks ago", "a few days ago", "3 years ago"
	k := i
	n, ok := smallNumbers[w]
	if w == "a" && k+1 < len(toks) && toks[k+1].lower == "few" {
		n, ok = 3, true
		k++
	}
	if !ok {
		if v, err := strconv.Atoi(w); err == nil && v > 0 && v < 100 {
			n, ok = v, true
		}
	}
	if !ok || k+2 >= len(toks) || toks[k+2].lower != "ago" {
		return dateSpan{}, false
	}
	unit := strings.TrimSuffix(toks[k+1].lower, "s")
	switch unit {
	case "day":
		return dateSpan{i, k + 3, day(-n), true}, true
	case "week":
		return dateSpan{i, k + 3, fmt.Sprintf("%s before %s", plural(n, "week"), refDay), false}, true
	case "month":
		return dateSpan{i, k + 3, monthOf(ref, -n), false}, true
	case "year":
		return dateSpan{i, k + 3, strconv.Itoa(ref.Year() - n), false}, true
	}
	return dateSpan{}, false
}

// monthOf names the month off months from ref's, like "April 2023".
func monthOf(ref time.Time, off int) string {
	y, m, _ := ref.Date()
	first := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC).AddDate(0, off, 0)
	return first.Format("January 2006")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}
