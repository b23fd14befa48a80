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
		"My family: my kids, my parents, my brothers and sisters and other relatives.",
		"Spending time with my children and relatives.",
		"Being a mother or father and raising a family.",
		"Her mother and father, his brother and sister, their son and daughter.",
		"Having a baby, looking after the kids, visiting the grandparents.",
	}},
	{"work", []string{
		"My job and career: my boss, coworkers, meetings and deadlines at the office.",
		"Working on a project for my company and getting a promotion.",
		"Looking for a new job and going to an interview.",
		"Works as an engineer at a company; the manager and the team.",
		"Running my own business and finding customers and investors.",
	}},
	{"health", []string{
		"Health and medicine: seeing a doctor, being sick, an injury or recovery.",
		"Mental health, therapy, stress and taking care of myself.",
		"Going to the hospital for treatment and medication.",
		"Allergies, symptoms, prescriptions and a medical condition.",
	}},
	{"hobbies", []string{
		"Hobbies I enjoy in my free time, like crafts, collecting, board games or gardening.",
		"Picking up a new hobby and practising it on weekends.",
		"A pastime such as knitting, chess, model building or growing vegetables.",
	}},
	{"travel", []string{
		"Travelling on vacation: flights, hotels, road trips and visiting another country.",
		"Exploring a new city as a tourist and sightseeing.",
		"Booking a flight, choosing a seat on the plane, passports and airports.",
	}},
	{"food", []string{
		"Food and cooking: recipes, baking, meals and favourite dishes.",
		"Eating at a restaurant and trying new food.",
		"Diet preferences: vegetarian, dislikes an ingredient, favourite drink.",
	}},
	{"education", []string{
		"School and studying: classes, university, courses, homework and exams.",
		"Learning a new skill, getting a degree and going to college.",
		"Taking lessons with a teacher and studying for a certificate.",
	}},
	{"relationships", []string{
		"Friends and relationships: dating, my partner, friendship and social life.",
		"Hanging out with friends and meeting new people.",
		"A breakup, falling in love or getting married.",
		"My husband or wife, my boyfriend or girlfriend, my best friend.",
	}},
	{"emotions", []string{
		"Feelings and emotions: feeling happy, sad, anxious, grateful, lonely or proud.",
		"Sharing how I feel and getting emotional support.",
		"Feeling stressed, nervous, low or overwhelmed.",
	}},
	{"plans", []string{
		"Plans and goals for the future: what I intend to do next.",
		"Planning an upcoming trip or event and setting goals.",
		"An appointment next week, a deadline, a reminder to do something.",
	}},
	{"events", []string{
		"Events and celebrations: a party, a festival, a wedding or a birthday.",
		"Attending a conference, a ceremony or a special occasion.",
		"An anniversary, a graduation, a parade or a big gathering.",
	}},
	{"finance", []string{
		"Money and finance: budget, savings, bills, salary and investments.",
		"Buying something expensive, paying rent and spending money.",
		"Bank account, loans, taxes, insurance and a pension.",
		"A savings account or an ISA, a mortgage, a credit card and paying off debt.",
	}},
	{"technology", []string{
		"Technology: computers, software, programming, phones, apps and the internet.",
		"Building an app, fixing a bug and learning to code.",
		"A laptop, a password, wifi, a website or social media.",
	}},
	{"art", []string{
		"Art and creativity: painting, drawing, sculpture, pottery and photography.",
		"Writing stories or poems and making creative projects.",
		"Writing a novel, sketching people and drawing in a sketchbook.",
		"Dancing, performing on stage and choreography.",
	}},
	{"music", []string{
		"Music: playing an instrument like guitar, piano or violin, singing and songs.",
		"Going to a concert and listening to my favourite band.",
		"Listening to jazz, rock or classical music, records and playlists.",
	}},
	{"sports", []string{
		"Sports and fitness: running, football, basketball, swimming and working out at the gym.",
		"Training for a marathon or playing in a team game.",
		"Yoga, climbing, cycling, martial arts and exercise.",
		"Swimming lengths at the pool, a fitness class, watching the match on TV.",
	}},
	{"pets", []string{
		"Pets: my dog or my cat, feeding them and walking the dog.",
		"Adopting a puppy or a kitten and taking it to the vet.",
	}},
	{"community", []string{
		"Identity and community: LGBTQ, transgender, activism, volunteering and support groups.",
		"Helping others in the community, charity work and standing up for equality.",
		"Volunteering at a shelter, donating to a cause and helping the neighbourhood.",
		"Organising a litter pick, a residents' group or a local campaign; being a Scout leader.",
	}},
	{"media", []string{
		"Books, movies and TV shows: reading a novel, watching a film or a series.",
		"A favourite author, a podcast or a video game I enjoyed.",
	}},
	{"home", []string{
		"My home: the house, moving to a new place and household chores.",
		"Decorating, renovating or cleaning my home.",
		"My flat or apartment, the landlord, repairs and the laundry.",
	}},
	{"nature", []string{
		"Nature and the outdoors: camping, hiking, the beach, mountains, forests and parks.",
		"Enjoying the sunset, the lake and the fresh air outside.",
		"Watching birds and wildlife, waterfalls and the ocean.",
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

// scoredTag is a taxonomy tag, its cosine to a note, and its lift: that
// cosine less the note's mean cosine over the whole taxonomy.
type scoredTag struct {
	tag  string
	sim  float64
	lift float64
}

// rankTags scores every taxonomy tag against vec, best first; ties go to
// the taxonomy's order.
func rankTags(protos [][]float32, vec []float32) []scoredTag {
	out := make([]scoredTag, len(protos))
	mean := 0.0
	for i, p := range protos {
		out[i] = scoredTag{tag: taxonomy[i].tag, sim: cosine(p, vec)}
		mean += out[i].sim
	}
	mean /= float64(len(protos))
	for i := range out {
		out[i].lift = out[i].sim - mean
	}
	slices.SortStableFunc(out, func(a, b scoredTag) int { return cmp.Compare(b.sim, a.sim) })
	return out
}

// chooseTags gives the tags the curator is confident of: each must stand
// minLift above the note's mean cosine to the taxonomy, the best must
// stand minGap above the runner-up, and the second and third must be
// within margin of the best. A note may get none. The lift, not a raw
// cosine, is the test because some notes sit close to every prototype
// (short or generic text) and others far from all; the mean says where a
// note's "unrelated" lies. The gap is the other half of confidence: a
// note whose best two tags are nearly tied ("swims at the lido": nature
// or sports) gets the wrong one as often as not, so it gets neither. A
// wrong tag misleads a tag filter, which is worse than no tag (issue 15).
func chooseTags(ranked []scoredTag, maxTags int, minLift, margin, minGap float64) []string {
	if len(ranked) > 1 && ranked[0].sim-ranked[1].sim < minGap {
		return nil
	}
	var out []string
	for _, t := range ranked {
		if len(out) >= maxTags || t.lift < minLift || t.sim < ranked[0].sim-margin {
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
