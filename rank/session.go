package rank

import (
	"cmp"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultHalfLife is the recency half-life when Options.HalfLife is 0: two
// months, about the span of one piece of work, so last week's sessions
// still count as current and last year's are clearly old.
const DefaultHalfLife = 60 * 24 * time.Hour

const (
	// recencyWeight is the share of a session's score that depends on age:
	// a session from now keeps all of it, a very old one keeps
	// 1-recencyWeight. A tenth makes recency a tie-breaker among
	// comparable matches only: a match a ninth better wins at any age.
	// (A quarter, a third better, decided close calls by age alone: on
	// LoCoMo, whose questions ask about every session alike, the
	// evidence session was first for 0.68 of the questions about its
	// oldest third of sessions and 0.82 about its newest.)
	recencyWeight = 0.1
	// projectBoost outweighs the whole recency range several times over
	// (1/(1-recencyWeight) ≈ 1.11), so among comparable matches the
	// current project's session wins however old it is, while a match
	// half as good again elsewhere still wins.
	projectBoost = 1.5
	// evidenceBonus is what a session holding every query term somewhere
	// gains over one holding a single one (evidenceFactor). Half the
	// message coverage bonus: words spread over a session are weaker
	// evidence than words in one passage, which the message scores
	// already reward. (Adding the session's relevance as one document
	// instead, BM25 over the whole session, ranked worse on both
	// relevance sets and loosened the bounds: not kept.)
	evidenceBonus = coverageBonus / 2
	// whenBoost is what a session gains for a scoring message in the time
	// the query names ("last week"): as much as the current project, so a
	// session from then wins among comparable matches but a clearly better
	// match from another time still wins.
	whenBoost = projectBoost - 1
	// dayBoost is whenBoost for a time no longer than dayWindow ("on
	// March 3", "yesterday"): a named day is the most precise a question
	// gets about when, and few sessions fall in it, so a session from
	// that day wins over a match up to twice as good from another.
	dayBoost = 2 * whenBoost
	// bestMessagesShown caps how many terms of the s1 + s2/2 + … series the
	// explain note spells out; the rest add less than s1/8 together.
	bestMessagesShown = 4
	// passageReach is how far a session's best passage reaches on each
	// side of its best message, through matched messages that follow one
	// another in its transcript: one, the neighbours that lend it context
	// (a prompt and its reply, a question and its answer). The best
	// passage counts in full. (Two deep ranked no better: real sessions
	// 0.889 against 0.898 hit@1, LoCoMo 0.753 against 0.754.)
	passageReach = 1
	// restWeight is what the matched messages outside the best passage
	// count for, as a share of what they would add inside it: a quarter,
	// so that a long session's mentions scattered over it add at most
	// half its best message (1/4 × (1 + 1/2 + …)). Summed in full,
	// they outweighed a short session whose one passage answers the
	// question better (real sessions: 0.880 -> 0.898 hit@1).
	restWeight = 0.25
)

// Rank scores every message, groups them into sessions, ranks the sessions
// best first and collapses near-duplicates into the best of them.
//
// Sessions with equal scores are ordered by Last (newer first), then by ID,
// so equal inputs give equal output whatever the order of msgs. Messages
// are copied; their Hits slices are shared with msgs.
func Rank(msgs []Message, q Query, opt Options) []Session {
	sessions, _ := RankPool(msgs, q, opt)
	return sessions
}

// RankPool is Rank that also says how many of the best sessions duplicate
// collapse needed; see Order.
func RankPool(msgs []Message, q Query, opt Options) ([]Session, int) {
	sessions := groupSessions(msgs)
	idf := termIDFs(&q)
	parallelFor(len(sessions), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			scoreMessages(&sessions[i], &q, idf, !opt.NoNotes)
			scoreSession(&sessions[i], idf, opt)
		}
	})
	return Order(sessions, opt)
}

// ScoreSessionMessages scores the messages of one session as Rank does,
// for a caller that gathers sessions one at a time and then calls Order,
// and builds the session's messages in place: msgs holds them unscored
// (only Message set), and becomes the session's Messages. A caller that made a
// []Message only to pass it on copies each large message once instead
// of twice.
func ScoreSessionMessages(msgs []ScoredMessage, q Query, opt Options) Session {
	if len(msgs) == 0 {
		panic("rank.ScoreSessionMessages: no messages")
	}
	s := Session{ID: msgs[0].Session, Messages: msgs}
	for i := range msgs {
		if msgs[i].Session != s.ID {
			panic("rank.ScoreSessionMessages: messages of several sessions")
		}
	}
	idf := termIDFs(&q)
	scoreMessages(&s, &q, idf, !opt.NoNotes)
	scoreSession(&s, idf, opt)
	return s
}

// Order ranks scored sessions best first and collapses near-duplicates,
// as Rank does after scoring. It also says how many of the best sessions
// duplicate collapse needed (all of them when opt.Limit is 0): a caller
// that scored only the best sessions exactly needs at least that many.
// When copies collapse until fewer than opt.Limit sessions are left, it
// asks for more than it was given, since more would have filled the limit.
func Order(sessions []Session, opt Options) ([]Session, int) {
	slices.SortFunc(sessions, compareSessions)
	if opt.Limit <= 0 {
		return collapseDuplicates(sessions, opt), len(sessions)
	}
	for pool := dedupPool(opt.Limit); ; pool += opt.Limit {
		kept := collapseDuplicates(sessions[:min(pool, len(sessions))], opt)
		switch {
		case len(kept) >= opt.Limit:
			return kept[:opt.Limit], pool
		case pool >= len(sessions):
			return kept, max(pool, len(sessions)+1) // more sessions would have filled it
		}
	}
}

// dedupPool is how many of the best sessions duplicate collapse looks at
// first when only limit are wanted: enough that a shown session's copies
// (which score alike, so rank close to it) are among them; when copies
// collapse away, the pool grows by limit until limit sessions remain.
// Comparing every pair of thousands of matched sessions was most of a
// common word's query time, and a search that ranks from the term index
// reads the text of every session in the pool.
func dedupPool(limit int) int { return limit + 5 }

// groupSessions gathers messages by session, sessions in order of first
// appearance (the final sort makes that order moot), messages unscored.
func groupSessions(msgs []Message) []Session {
	index := make(map[string]int)
	var sessions []Session
	for _, m := range msgs {
		at, ok := index[m.Session]
		if !ok {
			at = len(sessions)
			index[m.Session] = at
			sessions = append(sessions, Session{ID: m.Session})
		}
		sessions[at].Messages = append(sessions[at].Messages, ScoredMessage{Message: m})
	}
	return sessions
}

// scoreMessages scores every message of a session with the context its
// neighbours in the transcript lend it, their factors' notes written when
// notes is set.
func scoreMessages(s *Session, q *Query, idf []float64, notes bool) {
	ms := make([]measured, len(s.Messages))
	for i := range s.Messages {
		ms[i] = measure(&s.Messages[i].Message, q, idf)
	}
	prev, next := neighbours(s.Messages)
	// Every message's factors in one allocation, each its own capped
	// piece of it: one small allocation per message was most of
	// finishing it.
	per := maxMessageFactors(len(q.Terms))
	slab := make([]Factor, len(s.Messages)*per)
	for i := range s.Messages {
		var p, n *measured
		if prev[i] >= 0 {
			p = &ms[prev[i]]
		}
		if next[i] >= 0 {
			n = &ms[next[i]]
		}
		m := &s.Messages[i]
		dst := slab[i*per : i*per : (i+1)*per]
		m.Score, m.Factors = finishMessage(&m.Message, &ms[i], contextOf(p, n, len(q.Terms)), q, notes, dst)
		m.tf = ms[i].tf
	}
}

// neighbours finds, for every message, the matched message just before
// and just after it in its transcript (same Source, ordinal one less or
// more), or -1.
func neighbours(msgs []ScoredMessage) (prev, next []int) {
	type at struct {
		source  string
		ordinal int
	}
	index := make(map[at]int, len(msgs))
	for i, m := range msgs {
		if m.Ordinal > 0 {
			index[at{m.Source, m.Ordinal}] = i
		}
	}
	prev, next = make([]int, len(msgs)), make([]int, len(msgs))
	for i, m := range msgs {
		prev[i], next[i] = -1, -1
		if m.Ordinal <= 0 {
			continue
		}
		if j, ok := index[at{m.Source, m.Ordinal - 1}]; ok {
			prev[i] = j
		}
		if j, ok := index[at{m.Source, m.Ordinal + 1}]; ok {
			next[i] = j
		}
	}
	return prev, next
}

// scoreSession fills in everything but Similar; the messages are scored.
// The messages are ordered through a permutation of their indices, then
// moved once: a scored message is about 200 bytes holding pointers, and
// sorting the values themselves (twice: in transcript order, then best
// first) moved each of them about log n times, every move with the
// collector's write barriers while it runs: 3% of a question's CPU.
// Sorting the indices with the same comparisons gives the same order,
// ties included (the sort is deterministic).
func scoreSession(s *Session, idf []float64, opt Options) {
	order := make([]int32, len(s.Messages))
	for i := range order {
		order[i] = int32(i)
	}
	msgs := s.Messages
	slices.SortFunc(order, func(a, b int32) int { return compareChronological(&msgs[a], &msgs[b]) })
	describeSession(s, order)
	slices.SortFunc(order, func(a, b int32) int { return compareMessages(&msgs[a], &msgs[b]) })
	permute(s.Messages, order)
	s.Factors = []Factor{
		bestMessagesFactor(s.Messages, !opt.NoNotes),
		evidenceFactor(s.Messages, idf),
		recencyFactor(s.Last, opt.Now, opt.HalfLife),
		projectFactor(s.Project, opt.CurrentProject),
	}
	if opt.When != nil {
		s.Factors = append(s.Factors, whenFactor(s.Messages, opt.When))
	}
	s.Score = 1
	for _, f := range s.Factors {
		s.Score *= f.Value
	}
}

// permute moves msgs[order[k]] to msgs[k] for every k, each message once
// (following the permutation's cycles), and leaves order spent.
func permute(msgs []ScoredMessage, order []int32) {
	for k := range order {
		if order[k] < 0 || int(order[k]) == k {
			continue
		}
		held := msgs[k]
		for j := k; ; {
			from := int(order[j])
			order[j] = -1
			if from == k {
				msgs[j] = held
				break
			}
			msgs[j] = msgs[from]
			j = from
		}
	}
}

// describeSession sets Matches, First, Last, Project and Source. It walks
// the messages in transcript order (chrono: their indices in that order)
// so the choice of Project and Source does not depend on the order Rank
// was given them in.
func describeSession(s *Session, chrono []int32) {
	s.Matches = len(s.Messages)
	s.First, s.Last = scoringSpan(s.Messages, chrono)
	for _, i := range chrono {
		m := &s.Messages[i]
		if s.Project == "" {
			s.Project = m.Project
		}
		if s.Agent == "" {
			s.Agent = m.Agent
		}
		if s.Source == "" && m.Type != typeAgent && m.Type != typeTitle { // a summary title may come from another transcript
			s.Source = m.Source
		}
	}
	if s.Source == "" {
		s.Source = s.Messages[chrono[0]].Source // only subagent rows matched
	}
}

// scoringSpan returns the times of the first and last message that
// scores, so that a trailing "ok thanks" neither makes a session newer nor
// wins it a tie; if nothing scores, of the first and last message. chrono
// holds the indices of msgs in chronological order.
func scoringSpan(msgs []ScoredMessage, chrono []int32) (first, last time.Time) {
	scoring := func(i int32) bool { return msgs[i].Score > 0 }
	i, j := slices.IndexFunc(chrono, scoring), lastIndexFunc(chrono, scoring)
	if i < 0 {
		i, j = 0, len(chrono)-1
	}
	return msgs[chrono[i]].Timestamp, msgs[chrono[j]].Timestamp
}

func lastIndexFunc[T any](s []T, f func(T) bool) int {
	for i := len(s) - 1; i >= 0; i-- {
		if f(s[i]) {
			return i
		}
	}
	return -1
}

// compareMessages orders best first, then in transcript order.
func compareMessages(a, b *ScoredMessage) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	return compareChronological(a, b)
}

// compareChronological orders by time, then by place in the transcript;
// the text breaks the last ties so the order is total.
func compareChronological(a, b *ScoredMessage) int {
	if c := a.Timestamp.Compare(b.Timestamp); c != 0 {
		return c
	}
	if c := strings.Compare(a.Source, b.Source); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Line, b.Line); c != 0 {
		return c
	}
	return strings.Compare(a.Text, b.Text)
}

// compareSessions orders best first, then newer first, then by ID.
func compareSessions(a, b Session) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	if c := b.Last.Compare(a.Last); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// bestMessagesFactor combines message scores (best first) passage first:
// the best message and the matched messages next to it in its
// transcript, passageReach deep on either side, add up as s1 + s2/2 +
// s3/4 + …, the others as (r1 + r2/2 + …) × restWeight. Each further message counts
// half as much as the one before it, so a passage stays below twice its
// best message and ten passing mentions elsewhere cannot add up to one
// good exchange: a session is judged by its best passage, not by how
// much of it mentions the words. The note is written when notes is set
// (Options.NoNotes).
func bestMessagesFactor(best []ScoredMessage, notes bool) Factor {
	var passage, rest series
	p := passageOf(best)
	for i := range best {
		if i == 0 || p.holds(&best[i]) {
			passage.add(best[i].Score)
		} else {
			rest.add(best[i].Score)
		}
	}
	f := Factor{Name: "best messages", Value: passage.total + restWeight*rest.total}
	if notes {
		f.Note = bestMessagesNote(best, p, rest.n)
	}
	return f
}

// passage is the rows first to last of a transcript that the best
// passage spans.
type passage struct {
	source      string
	first, last int
}

// passageOf finds the best passage of best (best first): from the best
// message, each further row of its transcript while it is a matched
// message, passageReach at most on either side. A message whose place
// is unknown (Ordinal 0) is a passage of its own.
func passageOf(best []ScoredMessage) passage {
	if len(best) == 0 || best[0].Ordinal <= 0 {
		return passage{}
	}
	p := passage{source: best[0].Source, first: best[0].Ordinal, last: best[0].Ordinal}
	for range passageReach {
		if p.first > 1 && p.matched(best, p.first-1) {
			p.first--
		}
		if p.matched(best, p.last+1) {
			p.last++
		}
	}
	return p
}

// matched reports whether row ordinal of p's transcript is among msgs.
func (p passage) matched(msgs []ScoredMessage, ordinal int) bool {
	for i := range msgs {
		if msgs[i].Ordinal == ordinal && msgs[i].Source == p.source {
			return true
		}
	}
	return false
}

// holds reports whether m lies in p.
func (p passage) holds(m *ScoredMessage) bool {
	return p.source != "" && m.Ordinal >= p.first && m.Ordinal <= p.last && m.Source == p.source
}

// series adds scores, best first, at weights halving from 1.
type series struct {
	total, weight float64
	n             int
}

func (s *series) add(score float64) {
	if s.n == 0 {
		s.weight = 1
	}
	s.total += score * s.weight
	s.weight /= 2
	s.n++
}

// bestMessagesNote reads "46 messages: passage 71.00 + 52.00/2 + …, 41
// elsewhere × 0.25: 67.00 + 63.00/2 + …", spelling out the first
// bestMessagesShown terms of each series.
func bestMessagesNote(best []ScoredMessage, p passage, elsewhere int) string {
	var b strings.Builder
	b.WriteString(plural(len(best), "message") + ": passage ")
	writeSeries(&b, best, p, true)
	if elsewhere > 0 {
		b.WriteString(", " + strconv.Itoa(elsewhere) + " elsewhere × " + fmtFloat(restWeight) + ": ")
		writeSeries(&b, best, p, false)
	}
	return b.String()
}

// writeSeries writes the terms of the passage's series (or the rest's).
func writeSeries(b *strings.Builder, best []ScoredMessage, p passage, inPassage bool) {
	n := 0
	for i := range best {
		if (i == 0 || p.holds(&best[i])) != inPassage {
			continue
		}
		switch {
		case n == 0:
			b.WriteString(fmtFloat(best[i].Score))
		case n < bestMessagesShown:
			b.WriteString(" + " + fmtFloat(best[i].Score) + "/" + strconv.Itoa(1<<n))
		case n == bestMessagesShown:
			b.WriteString(" + …")
		}
		n++
	}
}

// evidenceFactor is the session's own evidence, fused with its best
// messages' (each scored as a passage, with its neighbours' context): how
// much of the query the session holds anywhere. Each term counts by its
// IDF relative to the terms' mean, so that a session holding the rare
// words of a question ranks above one holding its common ones, and by
// how surely the session holds it (its hits' weight up to one: a
// word-form hit, or one in a tool call's prose, counts less than an exact
// one). Messages that score nothing (acknowledgements) do not count, nor
// what a message only borrows from a neighbour.
func evidenceFactor(msgs []ScoredMessage, idf []float64) Factor {
	tf := make([]float64, len(idf))
	for _, m := range msgs {
		if m.Score <= 0 {
			continue
		}
		for t, v := range m.tf {
			if t < len(tf) {
				tf[t] += v
			}
		}
	}
	n := 0
	for _, v := range tf {
		if v > 0 {
			n++
		}
	}
	return Factor{Name: "evidence", Value: evidenceValue(tf, idf), Note: ofNote(n, len(idf), "terms across the session, by rarity")}
}

// evidenceValue is evidenceFactor's value for the weight of each term's
// hits over the session.
func evidenceValue(tf, idf []float64) float64 {
	if len(idf) <= 1 {
		return 1
	}
	total, have := 0.0, 0.0
	for t, v := range idf {
		total += v
		if t < len(tf) && tf[t] > 0 {
			have += v * min(tf[t], 1)
		}
	}
	if total <= 0 {
		return 1
	}
	// The number of terms present, each weighed by its IDF over the mean.
	matched := have / total * float64(len(idf))
	return 1 + evidenceBonus*coverageFraction(matched, len(idf))
}

// whenFactor boosts a session with a scoring message in the time the
// query names, or, less, in the days after a named day.
func whenFactor(msgs []ScoredMessage, w *TimeWindow) Factor {
	var best float64
	for _, m := range msgs {
		if m.Score > 0 {
			best = max(best, w.boostAt(m.Timestamp))
		}
	}
	switch {
	case best == 0:
		return Factor{Name: "when", Value: 1, Note: "nothing from " + w.Phrase}
	case best < w.boost():
		return Factor{Name: "when", Value: 1 + best, Note: "a match from the days after " + w.Phrase}
	}
	return Factor{Name: "when", Value: 1 + best, Note: "a match from " + w.Phrase}
}

// recencyFactor decays from 1 towards 1-recencyWeight with the age of the
// session's last match, halving the distance every half-life. A zero now
// disables it; a last match after now counts as new.
func recencyFactor(last, now time.Time, halfLife time.Duration) Factor {
	if now.IsZero() {
		return Factor{Name: "recency", Value: 1, Note: "no reference time"}
	}
	if halfLife <= 0 {
		halfLife = DefaultHalfLife
	}
	age := max(now.Sub(last), 0)
	return Factor{
		Name:  "recency",
		Value: recencyValue(last, now, halfLife),
		Note:  "last match " + fmtDays(age) + " ago, half-life " + fmtDays(halfLife),
	}
}

// recencyValue is recencyFactor's value, without the note.
func recencyValue(last, now time.Time, halfLife time.Duration) float64 {
	if now.IsZero() {
		return 1
	}
	if halfLife <= 0 {
		halfLife = DefaultHalfLife
	}
	age := max(now.Sub(last), 0)
	decay := math.Exp2(-age.Hours() / halfLife.Hours())
	return 1 - recencyWeight + recencyWeight*decay
}

// projectFactor boosts the current project.
func projectFactor(project, current string) Factor {
	if current == "" {
		return Factor{Name: "project", Value: 1, Note: "no current project"}
	}
	if inProject(project, current) {
		return Factor{Name: "project", Value: projectBoost, Note: "current project"}
	}
	return Factor{Name: "project", Value: 1, Note: "other project"}
}

// inProject reports whether project is dir or lies inside it, comparing
// whole path elements: /src/app/web is inside /src/app, /src/application
// is not.
func inProject(project, dir string) bool {
	if project == "" || dir == "" {
		return false
	}
	project, dir = filepath.Clean(project), filepath.Clean(dir)
	if project == dir {
		return true
	}
	prefix := dir
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(project, prefix)
}

func fmtDays(d time.Duration) string {
	return strconv.FormatFloat(d.Hours()/24, 'f', 1, 64) + " days"
}
