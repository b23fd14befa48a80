package search

import (
	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/invalid"
)

// Profile is what hybrid search ranks by (amem.Profile says what each
// profile suits).
type Profile = amem.Profile

const (
	ProfileAuto         = amem.ProfileAuto
	ProfileGeneral      = amem.ProfileGeneral
	ProfileConversation = amem.ProfileConversation
)

// ValidProfile checks a profile name; "" is auto.
func ValidProfile(p Profile) (Profile, error) {
	switch p {
	case "", ProfileAuto:
		return ProfileAuto, nil
	case ProfileGeneral, ProfileConversation:
		return p, nil
	}
	return "", invalid.Errorf("search profile %q; use %s, %s or %s", p, ProfileAuto, ProfileGeneral, ProfileConversation)
}

// ProfileInfo says which profile a namespace's searches use, and why.
type ProfileInfo = amem.ProfileInfo

// ChooseProfile resolves want (valid, not "") for a namespace of notes
// notes, turns of them dialogue turns.
func ChooseProfile(want Profile, turns, notes int) ProfileInfo {
	info := ProfileInfo{Profile: want, Turns: turns, Notes: notes}
	if want != ProfileAuto {
		return info
	}
	info.Auto = true
	info.Profile = ProfileGeneral
	if turns >= 2 && 2*turns >= notes {
		info.Profile = ProfileConversation
	}
	return info
}
