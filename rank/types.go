package rank

import "time"

// Hit is one match of one positive query term.
type Hit struct {
	Term       int // index into Query.Terms
	Start, End int // byte offsets into Message.Text; End is exclusive
}

// Message is one indexed message that matched the query.
type Message struct {
	Session, Project string
	// Type is "user", "assistant", "tool" (one compact row per tool call)
	// or "agent" (a subagent's row).
	Type      string
	Timestamp time.Time
	Text      string
	Source    string // transcript path
	Line      int    // line in the transcript
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
	// DedupThreshold is the Jaccard similarity at or above which two
	// sessions are collapsed; 0 (or less) means DefaultDedupThreshold, and a
	// value above 1 disables collapsing.
	DedupThreshold float64
	// Limit, if above zero, is how many sessions the caller will show:
	// Rank returns at most that many, and collapses duplicates only among
	// the best few times Limit. Zero ranks and collapses every session.
	Limit int
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
}

// Message types as the indexer writes them.
const (
	typeUser      = "user"
	typeAssistant = "assistant"
	typeTool      = "tool"
	typeAgent     = "agent"
)
