// Package benchgen writes a synthetic but realistic tree of Claude Code
// transcripts for benchmarking recall: the line types, noise, subagents,
// forks and headless runs of real ones, with prose and code sampled from
// the Go source tree. Output depends only on the seed, the size and the
// text source, never on the clock or on scheduling.
package benchgen

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recall-dev/recall/internal/errpath"
)

// Options configure Generate.
type Options struct {
	// Dir receives Dir/projects/<project>/<session>.jsonl and friends.
	Dir  string
	Size int64 // approximate total bytes under Dir/projects
	Seed uint64
	// Workers writing sessions in parallel; 0 means GOMAXPROCS.
	Workers int
	// Text is the prose and code to sample; nil loads the Go source tree
	// and falls back to a small built-in text with a warning on Log.
	Text *TextSource
	// Overwrite removes an existing Dir/projects first. Without it a
	// non-empty Dir/projects is an error, so stale files never mix in.
	Overwrite bool
	Log       io.Writer // warnings; nil discards them
	// Mixed adds the other agents' sessions (GenerateAgents) beside
	// projects/: MixedShare of Size more, in the same projects.
	Mixed bool
}

// Summary describes a finished generation.
type Summary struct {
	Stats
	Projects   int
	Elapsed    time.Duration
	TextOrigin string
	// Agents is the other agents' part of a mixed corpus (nil otherwise);
	// Stats counts the Claude Code part alone.
	Agents []AgentSummary
}

// ProjectsDir is where Generate puts the transcript tree under dir.
func ProjectsDir(dir string) string { return filepath.Join(dir, "projects") }

// Generate writes the corpus described by opts.
func Generate(opts Options) (Summary, error) {
	start := time.Now()
	if opts.Size <= 0 {
		return Summary{}, fmt.Errorf("size must be positive, got %d", opts.Size)
	}
	projectsDir := ProjectsDir(opts.Dir)
	if err := prepareOutput(projectsDir, opts.Overwrite); err != nil {
		return Summary{}, err
	}
	text := opts.Text
	if text == nil {
		text = DefaultTextSource(opts.Log)
	}
	p := makePlan(opts.Seed, opts.Size)
	c := &genContext{text: text, plan: &p, projectsDir: projectsDir, seed: opts.Seed}
	stats, err := writeAll(c, opts.Workers)
	if err != nil {
		return Summary{}, err
	}
	memStats, err := writeMemoryFolders(c)
	if err != nil {
		return Summary{}, err
	}
	stats.add(&memStats)
	sum := Summary{Stats: stats, Projects: len(p.projects), TextOrigin: text.Origin}
	if opts.Mixed {
		sum.Agents, err = GenerateAgents(AgentOptions{
			Dir: opts.Dir, ProjectsSize: opts.Size, Bytes: int64(float64(opts.Size) * MixedShare), Seed: opts.Seed,
			Workers: opts.Workers, Text: text, Overwrite: opts.Overwrite, Log: opts.Log,
		})
		if err != nil {
			return Summary{}, err
		}
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// DefaultTextSource loads GOROOT/src, or the built-in text with a
// warning when that fails.
func DefaultTextSource(log io.Writer) *TextSource {
	root := GoSourceRoot()
	if root != "" {
		ts, err := LoadTextSource(root)
		if err == nil {
			return ts
		}
		warn(log, "warning: cannot use the Go source tree as text (%v); using a small built-in text, so the corpus vocabulary will be tiny and search timings unrealistic", err)
	} else {
		warn(log, "warning: GOROOT not found; using a small built-in text, so the corpus vocabulary will be tiny and search timings unrealistic")
	}
	return fallbackTextSource()
}

func warn(log io.Writer, format string, args ...any) {
	if log != nil {
		fmt.Fprintf(log, format+"\n", args...)
	}
}

func prepareOutput(projectsDir string, overwrite bool) error {
	entries, err := os.ReadDir(projectsDir)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return errpath.Wrap("read", projectsDir, err)
	case len(entries) > 0 && !overwrite:
		return fmt.Errorf("%s is not empty; remove it or pass --force", projectsDir)
	case len(entries) > 0:
		if err := os.RemoveAll(projectsDir); err != nil {
			return errpath.Wrap("remove", projectsDir, err)
		}
	}
	if err := os.MkdirAll(projectsDir, 0o755); err != nil {
		return errpath.Wrap("create", projectsDir, err)
	}
	return nil
}

// writeAll writes every planned session on a pool of workers. Per-session
// results go into a slice by index and are summed in order, so the
// totals do not depend on scheduling either.
func writeAll(c *genContext, workers int) (Stats, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	results := make([]Stats, len(c.plan.sessions))
	var next atomic.Int64
	var failed atomic.Bool
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(c.plan.sessions) {
					return
				}
				st, err := writeSession(c, &c.plan.sessions[i])
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("session %s: %w", c.plan.sessions[i].id, err)
					}
					mu.Unlock()
					failed.Store(true)
					return
				}
				results[i] = st
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return Stats{}, firstErr
	}
	var total Stats
	for i := range results {
		total.add(&results[i])
	}
	return total, nil
}

// writeMemoryFolders gives some projects the auto-memory folder, which
// sits next to transcripts but is not one.
func writeMemoryFolders(c *genContext) (Stats, error) {
	var stats Stats
	for i := range c.plan.projects {
		if i%4 != 1 {
			continue
		}
		p := &c.plan.projects[i]
		r := sessionRand(c.seed, -1-i)
		t := newTopic(c.text, r)
		var b strings.Builder
		b.WriteString("# " + p.name + " memory\n\n")
		for range 5 + r.IntN(10) {
			b.WriteString("- " + t.sentence(r) + "\n")
		}
		n, err := writeSmallFile(filepath.Join(c.projectsDir, p.slug, "memory", "MEMORY.md"), []byte(b.String()))
		if err != nil {
			return stats, err
		}
		stats.Files++
		stats.Bytes += n
		stats.BytesByKind[kindMeta] += n
	}
	return stats, nil
}

// String is the one-line summary printed after generating.
func (s Summary) String() string {
	human := 0.0
	if s.Bytes > 0 {
		human = 100 * float64(s.HumanTextBytes) / float64(s.Bytes)
	}
	return fmt.Sprintf("%d files (%d sessions: %d forks, %d headless; %d subagents) in %d projects, %s, %d lines, human text %.1f%% of bytes, %s",
		s.Files, s.Sessions, s.Forks, s.Headless, s.Subagents, s.Projects, FormatSize(s.Bytes), s.Lines, human, s.Elapsed.Round(10*time.Millisecond))
}

// AgentsString is the one-line summary of a mixed corpus's other
// agents ("" when there are none).
func (s Summary) AgentsString() string { return agentsLine(s.Agents) }

// ByteMix lists the share of bytes per kind of line, largest first
// ("tool-result 41.0%, assistant-text 21.3%, …").
func (s Summary) ByteMix() string {
	names := LineKindNames()
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(s.BytesByKind[b], s.BytesByKind[a]) })
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = fmt.Sprintf("%s %.1f%%", names[k], 100*float64(s.BytesByKind[k])/float64(max(s.Bytes, 1)))
	}
	return strings.Join(parts, ", ")
}
