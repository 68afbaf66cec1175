package evalcorpus

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/search"
)

// LoCoMo (snap-research/locomo, data/locomo10.json; Maharana et al.,
// "Evaluating Very Long-Term Conversational Memory of LLM Agents", ACL
// 2024) is ten long conversations between two people, each in numbered
// sessions held days or weeks apart, with questions whose evidence names
// the dialog turns that answer them ("D3:5" is turn 5 of session 3).
//
// EvaluateLoCoMo turns every LoCoMo session into one Claude Code
// transcript (speaker_a types the prompts, speaker_b's turns are the
// assistant's replies), indexes them, types every question verbatim as
// the one positional argument of `recall "<question>"` with no flags, and
// reports where the sessions holding its evidence rank. The data file is
// not part of the repository: the caller gives its path.

// LoCoMoCategories names LoCoMo's question categories. The file only has
// the numbers; the names follow the release's evaluation code
// (task_eval/evaluation.py scores 1 as multi-hop, splitting the answer
// into parts; the prompts of 2 ask for a date; 5 is the adversarial
// choice; 3 takes the first of ';'-separated answers) and the paper's
// counts, whose order the ten conversations keep (single-hop the most
// questions, open-domain the fewest).
var LoCoMoCategories = map[int]string{
	1: "multi-hop",
	2: "temporal",
	3: "open-domain",
	4: "single-hop",
	5: "adversarial",
}

// LoCoMoConversation is one conversation of the file.
type LoCoMoConversation struct {
	ID                 string // sample_id, e.g. "conv-26"
	SpeakerA, SpeakerB string
	Sessions           []LoCoMoSession // by number
	Questions          []LoCoMoQuestion
}

// LoCoMoSession is one session of a conversation.
type LoCoMoSession struct {
	Num   int
	When  string    // session_N_date_time as written ("1:56 pm on 8 May, 2023")
	At    time.Time // When read as UTC
	Turns []LoCoMoTurn
}

// LoCoMoTurn is one dialog turn.
type LoCoMoTurn struct {
	Speaker string
	DiaID   string // "D3:5"
	Text    string
	Caption string // blip_caption of a shared photo, if any
}

// LoCoMoQuestion is one qa item.
type LoCoMoQuestion struct {
	Question string
	Answer   string // answer, or adversarial_answer for category 5
	Category int
	Evidence []string
	// Sessions are the session numbers the evidence names, ascending
	// and distinct; none when the question has no evidence.
	Sessions []int
}

// locomoFile is the JSON shape of locomo10.json.
type locomoFile []struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []struct {
		Question    string          `json:"question"`
		Answer      json.RawMessage `json:"answer"`
		Adversarial json.RawMessage `json:"adversarial_answer"`
		Evidence    []string        `json:"evidence"`
		Category    int             `json:"category"`
	} `json:"qa"`
}

type locomoTurn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
	Caption string `json:"blip_caption"`
}

var (
	locomoSessionKey = regexp.MustCompile(`^session_(\d+)$`)
	// locomoEvidence reads a dialog id; a few are written "D:11:26" or
	// several to one string ("D8:6; D9:17").
	locomoEvidence = regexp.MustCompile(`D:?(\d+):\d+`)
)

// locomoTimeLayout reads session_N_date_time.
const locomoTimeLayout = "3:04 pm on 2 January, 2006"

// ReadLoCoMo reads locomo10.json.
func ReadLoCoMo(path string) ([]LoCoMoConversation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read LoCoMo: %w", err)
	}
	convs, err := ParseLoCoMo(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return convs, nil
}

// ParseLoCoMo reads the conversations of a locomo10.json file.
func ParseLoCoMo(data []byte) ([]LoCoMoConversation, error) {
	var file locomoFile
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("parse LoCoMo: %w", err)
	}
	if len(file) == 0 {
		return nil, fmt.Errorf("parse LoCoMo: no conversations")
	}
	out := make([]LoCoMoConversation, 0, len(file))
	seen := map[string]bool{}
	for i, f := range file {
		c := LoCoMoConversation{ID: f.SampleID}
		if c.ID == "" {
			c.ID = fmt.Sprintf("conv-%d", i+1)
		}
		if seen[c.ID] {
			return nil, fmt.Errorf("parse LoCoMo: conversation %s twice", c.ID)
		}
		seen[c.ID] = true
		if err := c.parseConversation(f.Conversation); err != nil {
			return nil, fmt.Errorf("parse LoCoMo: %s: %w", c.ID, err)
		}
		for j, qa := range f.QA {
			q := LoCoMoQuestion{Question: qa.Question, Category: qa.Category, Evidence: qa.Evidence,
				Answer: locomoAnswer(qa.Answer)}
			if q.Answer == "" {
				q.Answer = locomoAnswer(qa.Adversarial)
			}
			if _, ok := LoCoMoCategories[q.Category]; !ok {
				return nil, fmt.Errorf("parse LoCoMo: %s question %d: category %d", c.ID, j+1, q.Category)
			}
			for _, ev := range qa.Evidence {
				for _, m := range locomoEvidence.FindAllStringSubmatch(ev, -1) {
					n, _ := strconv.Atoi(m[1])
					if c.session(n) == nil {
						return nil, fmt.Errorf("parse LoCoMo: %s question %d: evidence %q names session %d, which the conversation lacks", c.ID, j+1, ev, n)
					}
					if !slices.Contains(q.Sessions, n) {
						q.Sessions = append(q.Sessions, n)
					}
				}
			}
			slices.Sort(q.Sessions)
			c.Questions = append(c.Questions, q)
		}
		out = append(out, c)
	}
	return out, nil
}

func (c *LoCoMoConversation) parseConversation(raw map[string]json.RawMessage) error {
	for _, key := range []string{"speaker_a", "speaker_b"} {
		var name string
		if err := json.Unmarshal(raw[key], &name); err != nil || name == "" {
			return fmt.Errorf("no %s", key)
		}
		if key == "speaker_a" {
			c.SpeakerA = name
		} else {
			c.SpeakerB = name
		}
	}
	for key, value := range raw {
		m := locomoSessionKey.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		s := LoCoMoSession{}
		s.Num, _ = strconv.Atoi(m[1])
		var turns []locomoTurn
		if err := json.Unmarshal(value, &turns); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		if err := json.Unmarshal(raw[key+"_date_time"], &s.When); err != nil {
			return fmt.Errorf("%s_date_time: %w", key, err)
		}
		at, err := time.ParseInLocation(locomoTimeLayout, strings.TrimSpace(s.When), time.UTC)
		if err != nil {
			return fmt.Errorf("%s_date_time %q: %w", key, s.When, err)
		}
		s.At = at
		for _, t := range turns {
			if t.Speaker != c.SpeakerA && t.Speaker != c.SpeakerB {
				return fmt.Errorf("%s turn %s: speaker %q is neither %s nor %s", key, t.DiaID, t.Speaker, c.SpeakerA, c.SpeakerB)
			}
			s.Turns = append(s.Turns, LoCoMoTurn(t))
		}
		if len(s.Turns) > 0 {
			c.Sessions = append(c.Sessions, s)
		}
	}
	if len(c.Sessions) == 0 {
		return fmt.Errorf("no sessions")
	}
	slices.SortFunc(c.Sessions, func(a, b LoCoMoSession) int { return cmp.Compare(a.Num, b.Num) })
	return nil
}

// locomoAnswer renders an answer, which is a string or a number.
func locomoAnswer(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

func (c *LoCoMoConversation) session(n int) *LoCoMoSession {
	for i := range c.Sessions {
		if c.Sessions[i].Num == n {
			return &c.Sessions[i]
		}
	}
	return nil
}

// Last is the time of the conversation's last turn.
func (c *LoCoMoConversation) Last() time.Time {
	s := c.Sessions[len(c.Sessions)-1]
	return s.At.Add(time.Duration(len(s.Turns)-1) * time.Minute)
}

// LoCoMoCwd is the working directory of a conversation's sessions: one
// project per conversation.
func LoCoMoCwd(conversation string) string {
	return "/home/dev/locomo/" + conversation
}

// LoCoMoSessionID is the transcript id of session n of a conversation,
// derived from both so that every run writes the same files.
func LoCoMoSessionID(conversation string, n int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "locomo/%s/session_%d", conversation, n))
	return FormatUUID(sum[:16])
}

// Transcripts converts the conversation's sessions into Claude Code
// transcripts: speaker_a's turns are typed prompts, speaker_b's the
// assistant's text replies, one record per turn (two turns in a row by
// one speaker would stay two records), a minute apart from the session's
// date_time; a shared photo's caption is appended to its turn as
// "[shares a photo: <caption>]". With names, each turn starts with its
// speaker's name ("Caroline: ..."), as a transcript of a chat between two
// people is usually written. Record ids derive from the session id and
// the turn's position (Session.Marshal).
func (c *LoCoMoConversation) Transcripts(names bool) []Session {
	out := make([]Session, 0, len(c.Sessions))
	for _, s := range c.Sessions {
		tr := Session{ID: LoCoMoSessionID(c.ID, s.Num), Cwd: LoCoMoCwd(c.ID), Entrypoint: "cli"}
		for i, t := range s.Turns {
			kind := Assistant
			if t.Speaker == c.SpeakerA {
				kind = User
			}
			text := t.text()
			if names {
				text = t.Speaker + ": " + text
			}
			tr.Turns = append(tr.Turns, Turn{At: s.At.Add(time.Duration(i) * time.Minute), Kind: kind, Text: text})
		}
		out = append(out, tr)
	}
	return out
}

func (t LoCoMoTurn) text() string {
	if t.Caption == "" {
		return t.Text
	}
	photo := "[shares a photo: " + t.Caption + "]"
	if strings.TrimSpace(t.Text) == "" {
		return photo
	}
	return t.Text + " " + photo
}

// LoCoMoOptions say how the conversations are searched.
type LoCoMoOptions struct {
	// Joint indexes all conversations together and searches every
	// question across all of them; otherwise each conversation has its
	// own index and its questions search only it.
	Joint bool
	// Now is the clock for recency; zero means the day after the last
	// session searched (the conversation's own, or the latest of all when
	// Joint).
	Now time.Time
	// SpeakerNames starts every turn with its speaker's name
	// (Transcripts). recall-eval sets it by default: with it, per
	// conversation and the day after, the figures are those an outside
	// tester reported for "LoCoMo, every question verbatim" (hit@1
	// 0.735, hit@5 0.917); without it they are 0.704 and 0.904.
	SpeakerNames bool
}

// Describe says what o chose, for the report's header.
func (o LoCoMoOptions) Describe() string {
	scope := "scope conversation (each conversation its own index)"
	if o.Joint {
		scope = "scope joint (all conversations in one index)"
	}
	now := "now the day after the last session searched"
	if !o.Now.IsZero() {
		now = "now " + o.Now.UTC().Format(time.RFC3339)
	}
	names := "turns without speaker names"
	if o.SpeakerNames {
		names = "turns start with the speaker's name"
	}
	return scope + "; " + now + "; " + names
}

// LoCoMoOutcome is how one question did.
type LoCoMoOutcome struct {
	Conversation string
	Question     LoCoMoQuestion
	// Rank is the 1-based place of the first evidence session among the
	// sessions `recall` shows (search.DefaultSessions); 0 when none is.
	Rank int
	// FullRank is that place among every matching session (when Rank is
	// 0, where it would have been); 0 when no evidence session matched.
	// It is looked up for misses only (Rank != 1).
	FullRank int
	// Above names the sessions ranked above the first evidence session
	// (Labels), best first, at most maxAbove.
	Above     []string
	Err       string // the search's error: the CLI would have refused it
	TermIndex bool
}

// LoCoMoReport is the result of a LoCoMo evaluation.
type LoCoMoReport struct {
	Options       LoCoMoOptions
	Conversations int
	Sessions      int
	Turns         int
	// NoEvidence counts the questions left out for naming no evidence.
	NoEvidence int
	Outcomes   []LoCoMoOutcome
	// Labels names each transcript id: "conv-26 S3 (23 turns)".
	Labels map[string]string
}

// EvaluateLoCoMo writes the conversations as transcripts under workDir
// (which must be empty or missing), indexes them as opt says and runs
// every question with evidence as the CLI does.
func EvaluateLoCoMo(workDir string, convs []LoCoMoConversation, opt LoCoMoOptions) (*LoCoMoReport, error) {
	rep := &LoCoMoReport{Options: opt, Conversations: len(convs), Labels: map[string]string{}}
	for _, c := range convs {
		for _, s := range c.Sessions {
			rep.Sessions++
			rep.Turns += len(s.Turns)
			rep.Labels[LoCoMoSessionID(c.ID, s.Num)] = fmt.Sprintf("%s S%d (%d turns)", c.ID, s.Num, len(s.Turns))
		}
	}
	if opt.Joint {
		if err := rep.run(filepath.Join(workDir, "joint"), convs); err != nil {
			return nil, err
		}
		return rep, nil
	}
	for _, c := range convs {
		if err := rep.run(filepath.Join(workDir, c.ID), []LoCoMoConversation{c}); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// run indexes convs together under dir and asks their questions.
func (r *LoCoMoReport) run(dir string, convs []LoCoMoConversation) error {
	projects := filepath.Join(dir, "projects")
	var last time.Time
	for _, c := range convs {
		for _, s := range c.Transcripts(r.Options.SpeakerNames) {
			if err := s.Write(projects); err != nil {
				return err
			}
		}
		if l := c.Last(); l.After(last) {
			last = l
		}
	}
	snap, err := buildIndex(projects, filepath.Join(dir, "index"))
	if err != nil {
		return err
	}
	defer snap.Close()
	now := r.Options.Now
	if now.IsZero() {
		now = last.Truncate(24 * time.Hour).Add(24 * time.Hour)
	}
	for _, c := range convs {
		for _, q := range c.Questions {
			if len(q.Sessions) == 0 {
				r.NoEvidence++
				continue
			}
			o, err := r.ask(snap, c.ID, q, now)
			if err != nil {
				return fmt.Errorf("%s: %q: %w", c.ID, q.Question, err)
			}
			r.Outcomes = append(r.Outcomes, o)
		}
	}
	return nil
}

// ask runs one question as `recall "<question>" --now NOW` would.
func (r *LoCoMoReport) ask(snap *snapshot.Snapshot, conv string, q LoCoMoQuestion, now time.Time) (LoCoMoOutcome, error) {
	o := LoCoMoOutcome{Conversation: conv, Question: q}
	targets := make([]string, len(q.Sessions))
	for i, n := range q.Sessions {
		targets[i] = LoCoMoSessionID(conv, n)
	}
	params := search.Params{Terms: []string{q.Question}, Now: now.Format(time.RFC3339Nano)}
	res, err := runParams(snap, params)
	if err != nil {
		o.Err = err.Error() // the CLI would refuse it (exit 2): a miss
		return o, nil
	}
	o.TermIndex = res.Stats.TermIndex
	o.Rank = firstTarget(res.Sessions, targets)
	o.FullRank = o.Rank
	ranked := res.Sessions
	if o.Rank != 1 {
		all := 0
		params.Limit = &all
		full, err := runParams(snap, params)
		if err != nil {
			return o, fmt.Errorf("rank every session: %w", err)
		}
		o.FullRank = firstTarget(full.Sessions, targets)
		ranked = full.Sessions
	}
	o.Above = r.above(ranked, o.FullRank)
	return o, nil
}

// above names the sessions ranked above place rank (all when 0).
func (r *LoCoMoReport) above(ranked []rank.Session, place int) []string {
	var out []string
	for i, s := range ranked {
		if i+1 == place || len(out) == maxAbove {
			break
		}
		label := r.Labels[s.ID]
		if label == "" {
			label = s.ID // a session the harness did not write: an indexer bug
		}
		out = append(out, label)
	}
	return out
}

// Metrics computes the figures over the questions of category cat (0:
// all; -5: all but category 5). A refused question is a miss.
func (r *LoCoMoReport) Metrics(cat int) (Metrics, int) {
	var sel []Outcome
	errs := 0
	for _, o := range r.Outcomes {
		c := o.Question.Category
		if cat > 0 && c != cat || cat < 0 && c == -cat {
			continue
		}
		if o.Err != "" {
			errs++
		}
		sel = append(sel, Outcome{Rank: o.Rank})
	}
	return metricsOf(sel, func(o Outcome) int { return o.Rank }), errs
}

// Format renders the figures table; with misses, every question whose
// evidence session is not first follows it.
func (r *LoCoMoReport) Format(misses bool) string {
	var b strings.Builder
	b.WriteString("# LoCoMo session retrieval: where the sessions holding a question's evidence rank when it is typed verbatim, `recall \"<question>\"`, no flags.\n")
	fmt.Fprintf(&b, "# %d conversations, %d sessions, %d turns; %d questions with evidence, %d without (left out); %s.\n",
		r.Conversations, r.Sessions, r.Turns, len(r.Outcomes), r.NoEvidence, r.Options.Describe())
	fmt.Fprintf(&b, "# hit@k: an evidence session among the first k of the %d sessions shown (MRR counts 0 past them); errors: questions the search refused (misses).\n\n", search.DefaultSessions)
	fmt.Fprintf(&b, "%-14s %5s %7s %7s %7s %6s\n", "category", "n", "hit@1", "hit@5", "MRR", "errors")
	rows := []locomoRow{}
	for cat := 1; cat <= 5; cat++ {
		rows = append(rows, locomoRow{fmt.Sprintf("%d %s", cat, LoCoMoCategories[cat]), cat})
	}
	rows = append(rows, locomoRow{"all", 0}, locomoRow{"all but 5", -5})
	for _, row := range rows {
		m, errs := r.Metrics(row.cat)
		fmt.Fprintf(&b, "%-14s %5d %7.3f %7.3f %7.3f %6d\n", row.label, m.Queries, m.Hit1, m.Hit5, m.MRR, errs)
	}
	if !misses {
		return b.String()
	}
	b.WriteString("\nmisses (no evidence session first): rank [among all matches], category, conversation, question -> evidence sessions | ranked above it\n")
	for _, o := range r.Outcomes {
		if o.Rank == 1 {
			continue
		}
		rank := "-"
		if o.Rank > 0 {
			rank = fmt.Sprint(o.Rank)
		}
		full := "-"
		if o.FullRank > 0 {
			full = fmt.Sprint(o.FullRank)
		}
		above := strings.Join(o.Above, ", ")
		switch {
		case o.Err != "":
			rank, above = "err", o.Err
		case above == "":
			above = "(nothing)"
		}
		sessions := make([]string, len(o.Question.Sessions))
		for i, n := range o.Question.Sessions {
			sessions[i] = fmt.Sprintf("S%d", n)
		}
		fmt.Fprintf(&b, "%4s [%4s] %d %s  %s -> %s | %s\n", rank, full, o.Question.Category, o.Conversation,
			o.Question.Question, strings.Join(sessions, ","), above)
	}
	return b.String()
}

// locomoRow is a line of the figures table: a label and the category it
// covers (Metrics' cat).
type locomoRow struct {
	label string
	cat   int
}

// Paths says how the questions were ranked: from the term index or by
// reading every row.
func (r *LoCoMoReport) Paths() []string {
	index, refused := 0, 0
	for _, o := range r.Outcomes {
		switch {
		case o.Err != "":
			refused++
		case o.TermIndex:
			index++
		}
	}
	return []string{fmt.Sprintf("LoCoMo: %d of %d questions ranked from the term index, %d refused", index, len(r.Outcomes), refused)}
}
