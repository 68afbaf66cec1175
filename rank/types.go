package rank

import "time"

// Hit is one match of one positive query term.
type Hit struct {
	Term       int  // index into Query.Terms
	Start, End int  // byte offsets into Message.Text; End is exclusive
	Form       Form // how it matched; the zero value is an exact hit at a word start
}

// Message is one indexed message that matched the query.
type Message struct {
	Session, Project string
	// Type is "user", "assistant", "tool" (one compact row per tool call),
	// "agent" (a subagent's row) or "title" (a name the session was given).
	Type      string
	Timestamp time.Time
	Text      string
	Source    string // transcript path
	Line      int    // line in the transcript
	// Agent is the coding agent whose session it is (record.Agents
	// names; "" read as Claude Code's).
	Agent string
	// Ordinal is the message's position among the rows of its transcript
	// (1-based; 0 unknown): messages of the same Source whose ordinals
	// differ by one are neighbours, and lend each other context.
	Ordinal int
	// Hits holds every match of every positive term in Text, sorted by
	// Start. Hits that fall outside Text or name an unknown term are
	// ignored rather than trusted.
	Hits []Hit
}

// Query carries the positive terms and the index statistics scoring needs.
type Query struct {
	Terms     []string // positive terms (display form): OR words, then required words
	DocFreq   []int    // per term: how many indexed messages it matches
	TotalDocs int      // indexed messages searched
	// AvgLen is the average message length in bytes over the searched
	// messages; BM25 compares each message against it. Zero means unknown,
	// and every message is then treated as average.
	AvgLen float64
}

// Options tune the session-level factors.
type Options struct {
	// Now is the reference for recency. The zero time disables recency, so
	// that Rank never reads the clock itself.
	Now time.Time
	// HalfLife is the age at which the recency bonus halves; 0 means
	// DefaultHalfLife.
	HalfLife time.Duration
	// CurrentProject boosts sessions whose Project equals it or lies inside
	// it.
	CurrentProject string
	// DedupThreshold is the Jaccard similarity of matched text at or
	// above which two sessions are compared as whole conversations, and
	// collapsed if those are one (see Conversations); 0 (or less) means
	// DefaultDedupThreshold, and a value above 1 disables collapsing.
	DedupThreshold float64
	// When, if set, is the time the query names ("last week", "on March
	// 3"): sessions with a scoring message then rank higher.
	When *TimeWindow
	// NoNotes leaves the Note of every message's factors empty: the notes
	// are for --explain only, and writing them for every matched message
	// of every session read was about 2% of a question's CPU. Scores and
	// factor values are the same either way.
	NoNotes bool
	// Limit, if above zero, is how many sessions the caller will show:
	// Rank returns at most that many, and collapses duplicates only among
	// the best few times Limit. Zero ranks and collapses every session.
	Limit int
	// Conversations, if set, returns the whole conversation of each of
	// ids, in order: every message the index holds for that session,
	// matched or not (nil for one it does not know). Duplicate collapse
	// asks it only about sessions whose matched text is alike (most
	// searches have none), all in one call as a rule, and collapses two
	// only if most messages of both correspond.
	// Without it, or for a session it does not know, the matched
	// messages stand for the conversation: then a single shared message
	// never collapses two sessions either.
	Conversations func(ids []string) []Conversation
}

// TimeWindow is the time a query names, from From to To inclusive: the
// caller resolves "last week" or "on March 3" against its clock.
type TimeWindow struct {
	From, To time.Time
	Phrase   string // the words that named it
}

// dayWindow is the longest window that names a day: a calendar day
// with its slack either side (query.TimeWindow), or "yesterday".
const dayWindow = 3 * 24 * time.Hour

// boost is what a session from w gains (whenFactor).
func (w *TimeWindow) boost() float64 {
	if w.To.Sub(w.From) <= dayWindow {
		return dayBoost
	}
	return whenBoost
}

// tellingDays is how long after a named day a session still tells of it
// ("yesterday we…", "on Saturday I…") or carries its work on.
const tellingDays = 3 * 24 * time.Hour

// boostAt is what a session with a scoring message at t gains from w: the
// full boost in w; after a named day, within tellingDays, whenBoost, as
// for a wider window (a session from the day itself still wins).
func (w *TimeWindow) boostAt(t time.Time) float64 {
	if w.contains(t) {
		return w.boost()
	}
	if w == nil || t.IsZero() || w.To.Sub(w.From) > dayWindow {
		return 0
	}
	if t.After(w.To) && !t.After(w.To.Add(tellingDays)) {
		return whenBoost
	}
	return 0
}

// contains reports whether a message at t falls in w.
func (w *TimeWindow) contains(t time.Time) bool {
	if w == nil || t.IsZero() {
		return false
	}
	return !t.Before(w.From) && !t.After(w.To)
}

// Factor is one line of the --explain breakdown: a named contribution to a
// score and a human note on where it came from.
type Factor struct {
	Name  string
	Value float64
	Note  string
}

// ScoredMessage is a matched message with its score.
type ScoredMessage struct {
	Message
	Score   float64
	Factors []Factor
	tf      []float64 // per term: the weight of its own hits (see measure)
}

// Session is one ranked result.
type Session struct {
	ID, Project string
	Score       float64
	Factors     []Factor        // the session-level breakdown for --explain
	Messages    []ScoredMessage // all matched messages, best first
	Matches     int             // number of matched messages
	// First and Last are the times of the first and last matched message
	// that scores (of any matched message if none does): acknowledgements
	// neither extend a session nor make it newer.
	First, Last time.Time
	// Source is the main transcript path: that of a non-subagent message
	// if the session has one.
	Source  string
	Similar []string // ids of near-duplicate sessions collapsed into this one, best first
	// SimilarWhy says, for each of Similar, why it was collapsed into
	// this one: "18 of 19 messages the same (a resumed copy)". Factors
	// says it too, as one "collapsed" factor (value 1) per session.
	SimilarWhy []string
	// Title is the name the session was given (a custom-title, ai-title
	// or summary record), "" if none; ranking leaves it to its caller.
	Title string
	// Agent is the coding agent whose session it is (record.Agents
	// names): its messages'.
	Agent string
}

// Message types as the indexer writes them.
const (
	typeUser      = "user"
	typeAssistant = "assistant"
	typeTool      = "tool"
	typeAgent     = "agent"
	typeTitle     = "title"
)
