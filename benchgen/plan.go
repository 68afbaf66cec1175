package benchgen

import (
	"math"
	"math/rand/v2"
	"time"
)

// project is one working directory with its transcript folder.
type project struct {
	name   string
	cwd    string
	slug   string // folder name under projects/
	module string // Go module path, for go test output
}

// sessionSpec is everything decided up front about one session, so the
// sessions can be written in parallel and still come out the same.
type sessionSpec struct {
	index    int
	project  int
	id       string
	start    time.Time
	version  cliVersion
	budget   int64 // bytes of this session's own files, subagents included
	headless bool
	// clearStart opens the file with the /clear echo: it continues work
	// that another file of the same project began.
	clearStart bool
	forks      []forkSpec
}

// forkSpec is a fork (--fork-session, /branch) of a session: a new file
// whose first lines are copies of the parent's.
type forkSpec struct {
	id        string
	copyShare float64 // share of the parent's lines copied
	budget    int64   // bytes written after the copied lines
	gap       time.Duration
}

type plan struct {
	projects []project
	sessions []sessionSpec
	end      time.Time
}

// Corpus shape. The reference corpus had 1 GB in ~8k sessions, i.e. a
// mean of ~128 KB per session with a long tail.
const (
	medianSessionBytes  = 55 << 10
	sessionSizeSigma    = 1.2
	minSessionBytes     = 3 << 10
	maxSessionBytes     = 8 << 20
	medianHeadlessBytes = 12 << 10
	headlessShare       = 0.08
	forkShare           = 0.04
	minProjects         = 20
	maxProjects         = 48
	bytesPerProject     = 40 << 20
	timelineDays        = 182
	minOldSessions      = 3
	// minTurnBytes is roughly what one prompt-and-answer turn writes, and
	// turnOvershootBytes how far past its budget a session ends on
	// average (measured: about half a turn, and subagents).
	minTurnBytes       = 16 << 10
	turnOvershootBytes = 8 << 10
)

var projectNames = []string{
	"billing-service", "api-gateway", "recall", "infra-terraform", "dotfiles",
	"web_app.v2", "mobile-sync", "data-pipeline", "ml-experiments", "auth-server",
	"docs-site", "cli-tools", "payments", "search-indexer", "kube-operator",
	"chat-bot", "etl-jobs", "game-engine", "blog", "homelab", "compiler-play",
	"rust-port", "metrics-agent", "notebook", "scheduler", "storage-engine",
	"image-resizer", "email-worker", "feature-flags", "legacy-monolith",
	"wasm-demo", "trading-sim", "pdf-tools", "vpn-config", "crm-backend",
	"analytics", "load-tester", "ci-runners", "graphql-api", "inventory",
	"geo-service", "audit-log", "rate-limiter", "cache-proxy", "sdk-go",
	"invoice-gen", "warehouse", "my project",
}

// projectSlug is Claude Code's folder name for a cwd: every character
// outside [A-Za-z0-9] becomes '-'. (Paths over 200 characters get a hash
// suffix; the generated ones are all shorter.)
func projectSlug(cwd string) string {
	b := []byte(cwd)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

// timelineEnd is the fixed "now" of a corpus, derived from the seed so
// that output never depends on the clock.
func timelineEnd(seed uint64) time.Time {
	base := time.Date(2026, time.March, 1, 18, 0, 0, 0, time.UTC)
	return base.Add(time.Duration(seed%120) * 24 * time.Hour)
}

func makeProjects(r *rand.Rand, size int64) []project {
	n := int(min(max(size/bytesPerProject, minProjects), maxProjects))
	names := append([]string(nil), projectNames...)
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	projects := make([]project, n)
	for i := range projects {
		cwd := "/home/dev/src/" + names[i]
		if i%9 == 4 { // some sessions start in a subdirectory
			cwd += "/cmd/server"
		}
		projects[i] = project{
			name:   names[i],
			cwd:    cwd,
			slug:   projectSlug(cwd),
			module: "github.com/dev/" + projectSlug(names[i]),
		}
	}
	return projects
}

// makePlan draws sessions until their budgets add up to size. Projects
// get sessions Zipf-weighted (a few busy projects, a long tail), but each
// gets at least one.
func makePlan(seed uint64, size int64) plan {
	r := rand.New(rand.NewPCG(seed, 0x706c616e)) // "plan"
	p := plan{projects: makeProjects(r, size), end: timelineEnd(seed)}
	weights := zipfCumulative(len(p.projects), 0.9)
	maxBudget := min(int64(maxSessionBytes), max(size/minProjects, minSessionBytes))
	var planned int64
	for i := 0; planned < size; i++ {
		s := newSessionSpec(r, i, p, weights, maxBudget)
		// A session writes at least one whole turn, whatever its budget,
		// and ends with the turn that crosses it.
		planned += max(s.budget, minTurnBytes) + turnOvershootBytes
		for _, f := range s.forks {
			planned += int64(float64(s.budget)*f.copyShare) + f.budget
		}
		p.sessions = append(p.sessions, s)
	}
	return p
}

func newSessionSpec(r *rand.Rand, i int, p plan, weights []float64, maxBudget int64) sessionSpec {
	s := sessionSpec{index: i, id: newUUID(r), headless: r.Float64() < headlessShare}
	if i < len(p.projects) {
		s.project = i
	} else {
		s.project = pickWeighted(r, weights)
	}
	frac := r.Float64()
	if i < minOldSessions {
		// Even a small corpus needs a few 2.0.x sessions, the only ones
		// with the old project-level agent-*.jsonl layout.
		frac *= cliVersions[0].share
		s.headless = false
	}
	s.start = p.end.Add(-time.Duration((1 - frac) * timelineDays * 24 * float64(time.Hour)))
	s.version = versionAt(frac)
	if s.headless && !s.version.envelopeV2 {
		// Headless runs are recognised by entrypoint sdk-cli, which
		// older envelopes lack; real -p transcripts in the corpus are new.
		s.version = versionAt(0.5)
	}
	median := float64(medianSessionBytes)
	if s.headless {
		median = medianHeadlessBytes
	}
	s.budget = logNormalBytes(r, median, sessionSizeSigma, maxBudget)
	if !s.headless {
		s.clearStart = r.IntN(30) == 0
		if r.Float64() < forkShare {
			s.forks = append(s.forks, forkSpec{
				id:        newUUID(r),
				copyShare: 0.3 + 0.65*r.Float64(),
				budget:    logNormalBytes(r, median/2, sessionSizeSigma, maxBudget/2),
				gap:       time.Duration(5+r.IntN(60*48)) * time.Minute,
			})
		}
	}
	return s
}

func logNormalBytes(r *rand.Rand, median, sigma float64, maxBytes int64) int64 {
	v := int64(median * math.Exp(sigma*r.NormFloat64()))
	return min(max(v, minSessionBytes), maxBytes)
}

// zipfCumulative returns cumulative weights 1/(k+1)^s for n items.
func zipfCumulative(n int, s float64) []float64 {
	cum := make([]float64, n)
	total := 0.0
	for k := range n {
		total += 1 / math.Pow(float64(k+1), s)
		cum[k] = total
	}
	return cum
}

func pickWeighted(r *rand.Rand, cumulative []float64) int {
	x := r.Float64() * cumulative[len(cumulative)-1]
	for i, c := range cumulative {
		if x < c {
			return i
		}
	}
	return len(cumulative) - 1
}
