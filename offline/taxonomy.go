package offline

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
)

// category is one broad tag with sentences that describe it. Several
// sentences per category, averaged, describe a topic better than one: a
// single sentence drags the centroid towards its own particular words.
type category struct {
	tag       string
	prototype []string
}

// taxonomy is the fixed set of tags the offline curator chooses from. The
// tags are single lower-case words so that they work as search filters.
var taxonomy = []category{
	{"family", []string{
		"My family: my kids, my husband or wife, my parents, brothers and sisters.",
		"Spending time with my children and relatives.",
		"Being a mother or father and raising a family.",
	}},
	{"work", []string{
		"My job and career: my boss, coworkers, meetings and deadlines at the office.",
		"Working on a project for my company and getting a promotion.",
		"Looking for a new job and going to an interview.",
	}},
	{"health", []string{
		"Health and medicine: seeing a doctor, being sick, an injury or recovery.",
		"Mental health, therapy, stress and taking care of myself.",
		"Going to the hospital for treatment and medication.",
	}},
	{"hobbies", []string{
		"Hobbies I enjoy in my free time, like crafts, collecting, board games or gardening.",
		"Picking up a new hobby and practising it on weekends.",
	}},
	{"travel", []string{
		"Travelling on vacation: flights, hotels, road trips and visiting another country.",
		"Exploring a new city as a tourist and sightseeing.",
	}},
	{"food", []string{
		"Food and cooking: recipes, baking, meals and favourite dishes.",
		"Eating at a restaurant and trying new food.",
	}},
	{"education", []string{
		"School and studying: classes, university, courses, homework and exams.",
		"Learning a new skill, getting a degree and going to college.",
	}},
	{"relationships", []string{
		"Friends and relationships: dating, my partner, friendship and social life.",
		"Hanging out with friends and meeting new people.",
		"A breakup, falling in love or getting married.",
	}},
	{"emotions", []string{
		"Feelings and emotions: feeling happy, sad, anxious, grateful, lonely or proud.",
		"Sharing how I feel and getting emotional support.",
	}},
	{"plans", []string{
		"Plans and goals for the future: what I intend to do next.",
		"Planning an upcoming trip or event and setting goals.",
	}},
	{"events", []string{
		"Events and celebrations: a party, a festival, a wedding or a birthday.",
		"Attending a conference, a ceremony or a special occasion.",
	}},
	{"finance", []string{
		"Money and finance: budget, savings, bills, salary and investments.",
		"Buying something expensive, paying rent and spending money.",
	}},
	{"technology", []string{
		"Technology: computers, software, programming, phones, apps and the internet.",
		"Building an app, fixing a bug and learning to code.",
	}},
	{"art", []string{
		"Art and creativity: painting, drawing, sculpture, pottery and photography.",
		"Writing stories or poems and making creative projects.",
	}},
	{"music", []string{
		"Music: playing an instrument like guitar, piano or violin, singing and songs.",
		"Going to a concert and listening to my favourite band.",
	}},
	{"sports", []string{
		"Sports and fitness: running, football, basketball, swimming and working out at the gym.",
		"Training for a marathon or playing in a team game.",
	}},
	{"pets", []string{
		"Pets and animals: my dog, my cat, feeding and walking them.",
		"Adopting a puppy or a kitten and taking it to the vet.",
	}},
	{"community", []string{
		"Identity and community: LGBTQ, transgender, activism, volunteering and support groups.",
		"Helping others in the community, charity work and standing up for equality.",
	}},
	{"media", []string{
		"Books, movies and TV shows: reading a novel, watching a film or a series.",
		"A favourite author, a podcast or a video game I enjoyed.",
	}},
	{"home", []string{
		"Home and daily life: the house, moving to a new place, chores and the neighbourhood.",
		"Decorating, renovating or cleaning my home.",
	}},
	{"nature", []string{
		"Nature and the outdoors: camping, hiking, the beach, mountains, forests and parks.",
		"Enjoying the sunset, the lake and the fresh air outside.",
	}},
}

// prototypes embeds the taxonomy once per Curator, lazily, and keeps the
// result. A failed attempt is not cached, so a transient embedder error
// doesn't disable tagging for the life of the process.
type prototypes struct {
	mu   sync.Mutex
	vecs [][]float32 // one centroid per taxonomy entry
}

func (p *prototypes) get(ctx context.Context, emb interface {
	Embed(context.Context, []string) ([][]float32, error)
}) ([][]float32, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.vecs != nil {
		return p.vecs, nil
	}
	var texts []string
	for _, c := range taxonomy {
		texts = append(texts, c.prototype...)
	}
	vs, err := embedChecked(ctx, emb, texts)
	if err != nil {
		return nil, fmt.Errorf("embed tag prototypes: %w", err)
	}
	out := make([][]float32, len(taxonomy))
	k := 0
	for i, c := range taxonomy {
		out[i] = centroid(vs[k:k+len(c.prototype)], len(vs[0]))
		k += len(c.prototype)
	}
	p.vecs = out
	return out, nil
}

// scoredTag is a taxonomy tag and its cosine to a note.
type scoredTag struct {
	tag string
	sim float64
}

// rankTags scores every taxonomy tag against vec, best first; ties go to
// the taxonomy's order.
func rankTags(protos [][]float32, vec []float32) []scoredTag {
	out := make([]scoredTag, len(protos))
	for i, p := range protos {
		out[i] = scoredTag{taxonomy[i].tag, cosine(p, vec)}
	}
	slices.SortStableFunc(out, func(a, b scoredTag) int { return cmp.Compare(b.sim, a.sim) })
	return out
}

// chooseTags keeps the best tag always (a note has some topic) and the
// next ones while they pass minSim and stay within margin of the best, so
// a note gets several tags only when it really straddles categories.
func chooseTags(ranked []scoredTag, maxTags int, minSim, margin float64) []string {
	var out []string
	for i, t := range ranked {
		if len(out) >= maxTags {
			break
		}
		if i > 0 && (t.sim < minSim || t.sim < ranked[0].sim-margin) {
			break
		}
		out = append(out, t.tag)
	}
	return out
}

// inTaxonomy reports whether tag is one of the taxonomy's.
func inTaxonomy(tag string) bool {
	return slices.ContainsFunc(taxonomy, func(c category) bool { return c.tag == tag })
}
