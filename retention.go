package amem

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Retention is a namespace's policy of forgetting on purpose: the notes
// past it are moved to the namespace's trash by the workers (or
// Memory.ApplyRetention), from where they expire by the trash's rules,
// so a mistaken policy can be undone by restoring them while they are
// kept. Zero fields set no limit; the zero Retention is no policy.
//
// Notes are judged by EventTime, the time a person sees on a note (when
// it was said or happened), in event-time order (ties by ID): a note
// without an event time, which only an import of records without one
// can make, sorts as the oldest, as a browse by time shows it, so it is
// past every MaxAge and the first to go for MaxNotes. Every note is
// equal before the policy: amem has no pinned notes.
type Retention struct {
	// MaxAge removes the notes whose event time is more than MaxAge
	// before now; 0 sets no limit, else at least MinRetentionAge.
	MaxAge time.Duration
	// MaxNotes keeps the namespace's newest MaxNotes notes by event time
	// and removes the older ones; 0 sets no limit.
	MaxNotes int
}

// MinRetentionAge is the shortest MaxAge a policy may set (ValidRetention's
// messages say "an hour"): a shorter one is taken for a typing mistake
// (minutes for days), which would move a namespace's notes to the trash
// within minutes.
const MinRetentionAge = time.Hour

// IsZero reports whether r is no policy.
func (r Retention) IsZero() bool { return r == Retention{} }

// ValidRetention checks a policy a caller gave.
func ValidRetention(r Retention) error {
	if r.MaxAge < 0 {
		return invalidf("max age %s is negative: give an hour or more (90d, or 2160h), or 0 for no limit", r.MaxAge)
	}
	if r.MaxAge > 0 && r.MaxAge < MinRetentionAge {
		return invalidf("max age %s is under an hour: give a longer one (90d, or 2160h), or 0 for no limit", r.MaxAge)
	}
	if r.MaxNotes < 0 {
		return invalidf("max notes %d is negative: give 1 or more, or 0 for no limit", r.MaxNotes)
	}
	return nil
}

// String says the policy in words.
func (r Retention) String() string {
	switch {
	case r.IsZero():
		return "none (every note is kept)"
	case r.MaxNotes == 0:
		return fmt.Sprintf("notes older than %s go to the trash", ageWords(r.MaxAge))
	case r.MaxAge == 0:
		return fmt.Sprintf("all but the newest %d notes go to the trash", r.MaxNotes)
	}
	return fmt.Sprintf("notes older than %s, and all but the newest %d, go to the trash", ageWords(r.MaxAge), r.MaxNotes)
}

// ageWords writes a duration as days when it is whole days.
func ageWords(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d == day:
		return "1 day"
	case d%day == 0:
		return fmt.Sprintf("%d days", d/day)
	}
	return d.String()
}

// FormatAge writes a duration in whole days when it is some ("90d"), as
// a time.Duration otherwise.
func FormatAge(d time.Duration) string {
	const day = 24 * time.Hour
	if d > 0 && d%day == 0 {
		return fmt.Sprintf("%dd", d/day)
	}
	return d.String()
}

// Due returns how many of a namespace's notes the policy removes now:
// the namespace has total notes, of which past are undated or dated
// before now minus MaxAge (Retainer.CountBefore). Both limits remove
// the oldest notes in event-time order, so the notes due are always the
// first Due of that order.
func (r Retention) Due(total, past int) int {
	n := 0
	if r.MaxNotes > 0 && total > r.MaxNotes {
		n = total - r.MaxNotes
	}
	if r.MaxAge > 0 {
		n = max(n, past)
	}
	return n
}

// RetentionDue is what a namespace's policy would move to the trash now.
type RetentionDue struct {
	// Notes is how many notes; Oldest the first of them (the oldest note
	// of the namespace), zero when Notes is 0.
	Notes  int
	Oldest EventKey
}

// Retainer is a Tx's optional ability to keep namespaces' retention
// policies, found by type assertion like Trasher. A Tx without it keeps
// none: Memory.SetRetention is errors.ErrUnsupported, a namespace's
// policy is always the zero one and nothing is removed. Memory removes
// notes by paging in event-time order, so it also needs EventTimePager.
type Retainer interface {
	// PutRetention sets the namespace's policy; the zero Retention
	// removes it. The namespace need not hold notes yet.
	PutRetention(ns string, r Retention) error
	// Retention returns the namespace's policy, the zero one if none.
	Retention(ns string) (Retention, error)
	// Retentions returns every namespace's policy that is not zero.
	Retentions() (map[string]Retention, error)
	// CountBefore counts the namespace's notes whose event time is before
	// t or that have none (an indexed count).
	CountBefore(ns string, t time.Time) (int, error)
}

// ParseAge reads a retention age: whole days ("90d") or a Go duration
// ("2160h", "36h30m"); "" and "0" are no limit (0). Anything else, or a
// negative age, is ErrInvalid; ValidRetention checks the rest.
func ParseAge(s string) (time.Duration, error) {
	switch s {
	case "", "0":
		return 0, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		const maxDays = int(math.MaxInt64 / int64(24*time.Hour))
		if err != nil || n < 0 || n > maxDays {
			return 0, invalidf("max age %q: give whole days (90d) or a duration (2160h)", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, invalidf("max age %q: give whole days (90d) or a duration (2160h)", s)
	}
	return d, nil
}
