// Package search is recall's one search entry point: the CLI and the MCP
// server both call Run. It reads the committed index, applies the query and
// filters, the windowed recall cutoff, and ranks sessions.
package search

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/recall-dev/recall/filter"
)

// Scope says where --require and --exclude apply.
type Scope string

// The scopes.
const (
	ScopeMessage Scope = "message" // each message on its own, like the classic pipeline
	ScopeSession Scope = "session" // whole sessions: required words anywhere, excluded words nowhere
)

// Request is one search.
type Request struct {
	Terms   []string // positional words, OR'ed
	Require []string
	Exclude []string
	Match   filter.MatchOptions
	Scope   Scope

	Projects       []string  // absolute paths (the project or a folder above it) or name fragments
	Since, Until   time.Time // zero: unbounded
	Types          []string  // user, assistant, tool, agent; empty: all
	Sessions       []string  // session ids or unique prefixes
	CurrentSession string    // never shown
	CurrentProject string    // ranked first among equals

	Now      time.Time
	HalfLife time.Duration

	Cutoff bool
	Window filter.Window

	// Limit is how many sessions will be shown; 0 ranks them all (for
	// --count, which reports how many matched).
	Limit int

	// FullScan reads every row instead of ranking from the term index;
	// the results are the same (tests compare them), only slower.
	FullScan bool
}

// ParseTime reads a --since/--until value: a duration back from now
// ("30d", "2w", "12h", "90m") or a date ("2026-01-31", RFC 3339).
func ParseTime(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if d, ok := parseAge(s); ok {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot read time %q: use a date (2026-01-31) or an age (30d, 2w, 12h)", s)
}

// parseAge reads "30d", "2w", "12h", "90m", "1y".
func parseAge(s string) (time.Duration, bool) {
	if len(s) < 2 {
		return 0, false
	}
	n, err := strconv.ParseFloat(s[:len(s)-1], 64)
	if err != nil || n < 0 {
		return 0, false
	}
	unit := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour, 'y': 365 * 24 * time.Hour}[s[len(s)-1]]
	if unit == 0 {
		return 0, false
	}
	return time.Duration(n * float64(unit)), true
}

// ProjectRoot is the git root above dir, else dir itself: what "the
// current project" and `--project .` mean.
func ProjectRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return abs
		}
	}
}

// ResolveProject turns a --project value into what sessions are matched
// against: "." is the current project; an existing path is made absolute;
// anything else is a fragment of the project path.
func ResolveProject(arg, cwd string) string {
	if arg == "." {
		return ProjectRoot(cwd)
	}
	if info, err := os.Stat(arg); err == nil && info.IsDir() {
		if abs, err := filepath.Abs(arg); err == nil {
			return abs
		}
	}
	return arg
}

// projectMatches reports whether a session's project path satisfies one of
// the --project values: equal, inside it, or (for a value that is not an
// absolute path) containing it.
func projectMatches(project string, wanted []string) bool {
	if len(wanted) == 0 {
		return true
	}
	for _, w := range wanted {
		if InProject(project, w) {
			return true
		}
		if !filepath.IsAbs(w) && strings.Contains(strings.ToLower(project), strings.ToLower(w)) {
			return true
		}
	}
	return false
}

// InProject reports whether path is root or inside it.
func InProject(path, root string) bool {
	if root == "" {
		return false
	}
	return path == root || strings.HasPrefix(path, strings.TrimSuffix(root, "/")+"/")
}
