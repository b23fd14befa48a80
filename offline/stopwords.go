package offline

import "strings"

// functionWords and fillerWords together are the stopwords: English
// function words plus the filler verbs, adverbs, adjectives and
// interjections of conversation ("went", "really", "cool", "hey"). They
// split candidate phrases: without a part-of-speech tagger, "between
// stopwords" is the cheapest usable approximation of "noun phrase", and
// chat transcripts need the wider list because their filler words would
// otherwise outrank the topics.
var functionWords = toSet(`
a about above across after afterwards again against ago all almost alone along already also
although always am among amongst an and another any anybody anyhow anyone anything anyway
anyways anywhere are aren't around as at away back be became because become becomes becoming
been before beforehand behind being below beside besides between beyond both but by can
can't cannot could couldn't did didn't do does doesn't doing don't done down during each
either else elsewhere enough etc even ever every everybody everyone everything everywhere
except few for former formerly from further had hadn't has hasn't have haven't having he
he'd he'll he's hence her here here's hers herself him himself his how how's however i i'd
i'll i'm i've if in indeed instead into is isn't it it's its itself just least less let
let's like likely many may maybe me meanwhile might mine more moreover most mostly much must
mustn't my myself namely neither never nevertheless next no nobody none noone nor not
nothing now nowhere of off often on once one ones only onto or other others otherwise ought
our ours ourselves out over own per perhaps please quite rather really same several shall
shan't she she'd she'll she's should shouldn't since so some somebody somehow someone
something sometime sometimes somewhat somewhere still such than that that's the their
theirs them themselves then thence there there's thereafter thereby therefore therein these
they they'd they'll they're they've this those though through throughout thru thus to
together too toward towards under until unto up upon us very via was wasn't we we'd we'll
we're we've were weren't what what's whatever when when's whence whenever where where's
whereas whereby wherever whether which while whither who who's whoever whole whom whose why
why's will with within without won't would wouldn't yet you you'd you'll you're you've your
yours yourself yourselves
`)

// fillerWords are content words too vague to be a topic on their own. Unlike
// functionWords they may begin a capitalised name ("New York", "Great Barrier
// Reef").
var fillerWords = toSet(`
ah aha aw aww awesome bye cheers cool congrats congratulations dear definitely gosh great
haha hahaha hello hey hi hmm huh lol nice oh ok okay omg oops sure thanks thank ugh um wow
yay yeah yep yes yup totally absolutely exactly honestly seriously literally basically
actually certainly probably simply truly super
able amazing bad beautiful best better big fantastic fine glad good happy hard important
incredible interesting lovely new nice old proud real right sad small special sorry
terrific tough true wonderful cute fun funny crazy
am'nt ain't gonna gotta wanna kinda sorta y'all
ask asked asking came come comes coming did do does doing feel feeling feels felt find
finding finds found get gets getting give given gives giving go goes going gone got gotten
guess had happen happened happens hear heard hope hoped hopes hoping keep keeps kept know
knowing known knows learn learned learning look looked looking looks love loved loves
loving made make makes making mean means meant need needed needs put puts said say saying
says see seeing seen sees seem seemed seems show showed shown shows take taken takes taking
tell telling tells think thinking thinks thought told took tried tries try trying want
wanted wanting wants went let lets use used uses using glad stay stayed
sound sounds sounded agree agreed well pretty keen vital sweet thankful grateful powerful
exciting excited inspiring inspired rewarding stunning brilliant perfect impressive
ran saw met had took gave bought brought spent sent won began became wrote sang drove ate
drank slept caught sat stood held paid built chose fell flew forgot grew knew rode spoke
threw understood woke wore catch check checking checked talk talked talking chat chatted
chatting share shared sharing enjoy enjoyed enjoying start started starting continue
continued help helped helps helping mind wait waiting long safe gorgeous fancy stoked
huge missed miss glad far plenty
also anyway always day days thing things stuff lot lots bit kind sort way ways time times
today tomorrow yesterday tonight week weekend month year morning evening afternoon night
moment while soon lately recently later last first second part
everything anything something nothing
`)

// adverbExceptions end in "ly" but are nouns or adjectives worth keeping.
var adverbExceptions = toSet(`family assembly butterfly supply reply rally ally italy july
lily jelly belly bully holly anomaly monopoly homily fly early daily weekly monthly yearly
friendly lonely elderly holy ugly silly jolly curly chilly hilly only quarterly`)

// isVague reports whether w is an adverb in -ly ("nicely", "recently"):
// these would otherwise make phrases like "blend nicely".
func isVague(w string) bool {
	if len(w) < 5 || !strings.HasSuffix(w, "ly") {
		return false
	}
	_, ok := adverbExceptions[w]
	return !ok
}

func toSet(words string) map[string]struct{} {
	m := make(map[string]struct{})
	for _, w := range strings.Fields(words) {
		m[w] = struct{}{}
	}
	return m
}

// IsStopword reports whether the lower-cased word w is one of the
// curator's stopwords (function words and conversational filler): what it
// never takes for a keyword. The evaluation's failure analysis uses it to
// tell a question's content words.
func IsStopword(w string) bool { return isStopword(w) }

// isStopword reports whether the lower-cased token w is a stopword.
func isStopword(w string) bool {
	_, ok := functionWords[w]
	if !ok {
		_, ok = fillerWords[w]
	}
	return ok
}

// isFunctionWord reports whether the lower-cased token w is a function word.
func isFunctionWord(w string) bool {
	_, ok := functionWords[w]
	return ok
}
