package evalcorpus

import (
	"crypto/sha256"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"
	"time"
)

// Config says what corpus to generate. Equal configs give byte-identical
// corpora: everything is drawn from generators seeded by Seed and by the
// name of what is being drawn (a topic id, a background index), never from
// the clock, so adding a topic does not reshuffle the others.
type Config struct {
	Seed uint64
	// Topics get a target session each, plus distractors.
	Topics []Topic
	// Background is the number of sessions about chores only.
	Background int
	// Now is the moment the corpus is searched at; every session is dated
	// before it.
	Now time.Time
}

// DefaultConfig is the corpus `make eval` measures: every topic and
// enough background to make common words common.
func DefaultConfig() Config {
	return Config{Seed: 1, Topics: Topics(), Background: 280, Now: time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)}
}

// Role says why a session is in the corpus.
type Role string

// The roles. Only targets and forks of targets are right answers.
const (
	RoleTarget     Role = "target"     // the topic's work, written from its description
	RoleFork       Role = "fork"       // a resumed copy of a target: new ids, same discussion, one more message
	RoleTwin       Role = "twin"       // the same work done in another project
	RolePassing    Role = "passing"    // a chore session that mentions the topic in passing many times
	RoleNoise      Role = "noise"      // the topic's text only in tool results, system reminders and shell output
	RoleEcho       Role = "echo"       // recall run for the topic, then its result quoted back
	RoleStale      Role = "stale"      // an older, abandoned first attempt at the same work
	RoleBackground Role = "background" // chores, with a rare passing mention of a random topic
)

// SessionInfo records what a generated session is.
type SessionInfo struct {
	ID      string
	Project string
	Role    Role
	Topic   string // the topic written from or about; "" for background
}

// Corpus is a generated transcript tree and what each session in it is.
type Corpus struct {
	ProjectsDir string
	Sessions    []SessionInfo // in generation order
}

// Targets returns the ids of the sessions that answer a query for topic:
// its target and the target's forks.
func (c *Corpus) Targets(topic string) []string {
	var out []string
	for _, s := range c.Sessions {
		if s.Topic == topic && (s.Role == RoleTarget || s.Role == RoleFork) {
			out = append(out, s.ID)
		}
	}
	return out
}

// Distractors lists the kinds of distractor written for topic, in
// generation order.
func (c *Corpus) Distractors(topic string) []Role {
	var out []Role
	for _, s := range c.Sessions {
		if s.Topic == topic && s.Role != RoleTarget {
			out = append(out, s.Role)
		}
	}
	return out
}

// Projects counts the distinct projects of the corpus.
func (c *Corpus) Projects() int {
	seen := map[string]bool{}
	for _, s := range c.Sessions {
		seen[s.Project] = true
	}
	return len(seen)
}

// Generate writes the corpus of cfg under dir/projects.
func Generate(dir string, cfg Config) (*Corpus, error) {
	sessions, infos, err := Plan(cfg)
	if err != nil {
		return nil, err
	}
	c := &Corpus{ProjectsDir: filepath.Join(dir, "projects"), Sessions: infos}
	for i := range sessions {
		if err := sessions[i].Write(c.ProjectsDir); err != nil {
			return nil, fmt.Errorf("generate corpus: %w", err)
		}
	}
	return c, nil
}

// Plan builds every session of cfg in memory, in a fixed order.
func Plan(cfg Config) ([]Session, []SessionInfo, error) {
	g, err := newGenerator(cfg)
	if err != nil {
		return nil, nil, err
	}
	for _, t := range cfg.Topics {
		g.addTopic(t)
	}
	for i := range cfg.Background {
		g.addBackground(i)
	}
	return g.sessions, g.infos, nil
}

// generator accumulates sessions; it lives for one Plan call.
type generator struct {
	cfg      Config
	vocab    *vocabulary
	projects map[string]project
	dirs     []string // project directories in a fixed order, for random picks
	sessions []Session
	infos    []SessionInfo
}

func newGenerator(cfg Config) (*generator, error) {
	g := &generator{cfg: cfg, vocab: newVocabulary(), projects: map[string]project{}}
	for _, p := range projects() {
		g.projects[p.Dir] = p
		g.dirs = append(g.dirs, p.Dir)
	}
	for _, t := range cfg.Topics {
		if _, ok := g.projects[t.Project]; !ok {
			return nil, fmt.Errorf("topic %s: unknown project %s", t.ID, t.Project)
		}
		if _, ok := g.projects[t.Twin]; t.Twin != "" && !ok {
			return nil, fmt.Errorf("topic %s: unknown twin project %s", t.ID, t.Twin)
		}
		if len(t.Answer) == 0 {
			return nil, fmt.Errorf("topic %s: no answer", t.ID)
		}
	}
	return g, nil
}

// rng returns a generator seeded by the corpus seed and a name, so each
// session's randomness is its own.
func (g *generator) rng(name ...string) *rand.Rand {
	h := fnv.New64a()
	for _, n := range name {
		h.Write([]byte(n))
		h.Write([]byte{0})
	}
	return rand.New(rand.NewPCG(g.cfg.Seed, h.Sum64()))
}

// sessionID derives a session id from the seed and the session's name.
func (g *generator) sessionID(name ...string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d", g.cfg.Seed)
	for _, n := range name {
		h.Write([]byte{0})
		h.Write([]byte(n))
	}
	return FormatUUID(h.Sum(nil))
}

func (g *generator) add(s Session, role Role, topic string) {
	g.sessions = append(g.sessions, s)
	g.infos = append(g.infos, SessionInfo{ID: s.ID, Project: s.Cwd, Role: role, Topic: topic})
}

// Distractor odds per topic. Each kind is common enough that dozens of
// queries face it, rare enough that the set is not made of one kind.
const (
	forkOdds    = 0.35
	passingOdds = 0.6
	noiseOdds   = 0.4
	echoOdds    = 0.35
	staleOdds   = 0.3
)

// addTopic adds a topic's target and the distractors drawn for it.
func (g *generator) addTopic(t Topic) {
	r := g.rng("topic", t.ID)
	start := g.daysAgo(r, 3, 400)
	target := g.workSession(t, t.Project, g.sessionID("target", t.ID), start, g.rng("target", t.ID))
	g.add(target, RoleTarget, t.ID)
	if r.Float64() < forkOdds {
		g.add(g.fork(target, t.ID, r), RoleFork, t.ID)
	}
	if t.Twin != "" {
		// Newer than the target, so recency favours the wrong project and
		// only the project preference can put the target first.
		twinStart := start.Add(time.Duration(5+r.IntN(55)) * 24 * time.Hour)
		twinStart = minTime(twinStart, g.cfg.Now.Add(-24*time.Hour))
		g.add(g.workSession(t, t.Twin, g.sessionID("twin", t.ID), twinStart, g.rng("twin", t.ID)), RoleTwin, t.ID)
	}
	if r.Float64() < passingOdds {
		g.add(g.passingSession(t, r), RolePassing, t.ID)
	}
	if r.Float64() < noiseOdds {
		g.add(g.noiseSession(t, r), RoleNoise, t.ID)
	}
	if r.Float64() < echoOdds {
		g.add(g.echoSession(t, r), RoleEcho, t.ID)
	}
	if r.Float64() < staleOdds {
		// Months before the target: the same problem, first met and parked.
		staleStart := start.Add(-time.Duration(60+r.IntN(240)) * 24 * time.Hour)
		g.add(g.staleSession(t, staleStart, r), RoleStale, t.ID)
	}
}

// daysAgo picks a start time between lo and hi days before Now, during
// working hours.
func (g *generator) daysAgo(r *rand.Rand, lo, hi int) time.Time {
	day := g.cfg.Now.Add(-time.Duration(lo+r.IntN(hi-lo+1)) * 24 * time.Hour).Truncate(24 * time.Hour)
	return day.Add(time.Duration(8*60+r.IntN(10*60)) * time.Minute)
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// otherProject picks a project other than dir.
func (g *generator) otherProject(r *rand.Rand, dir string) string {
	for {
		if p := g.dirs[r.IntN(len(g.dirs))]; p != dir {
			return p
		}
	}
}

// addBackground adds the i-th chore session.
func (g *generator) addBackground(i int) {
	name := fmt.Sprint(i)
	r := g.rng("background", name)
	dir := g.dirs[r.IntN(len(g.dirs))]
	w := g.newWriter(r, dir, g.daysAgo(r, 1, 400))
	for n := 2 + r.IntN(4); n > 0; n-- {
		w.chore(g.rareMention(r))
	}
	g.add(w.session(g.sessionID("background", name)), RoleBackground, "")
}

// rareMention returns, for one background session in a few, a random
// topic's mention to drop into its replies.
func (g *generator) rareMention(r *rand.Rand) func() string {
	return func() string {
		if len(g.cfg.Topics) == 0 || r.Float64() >= 0.06 {
			return ""
		}
		return g.cfg.Topics[r.IntN(len(g.cfg.Topics))].Mention
	}
}
