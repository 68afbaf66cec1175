// Package agents knows the coding agents other than Claude Code whose
// session files recall reads (Codex CLI, Gemini CLI, OpenCode, Aider):
// where each keeps them, how they are found and read, and how a session
// is reopened. Each agent's reading is its own package under transcript;
// this one puts them behind one table, so the indexer, the freshness
// check, resume and stats ask it rather than each agent.
package agents

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
	"github.com/recall-dev/recall/transcript/aider"
	"github.com/recall-dev/recall/transcript/codex"
	"github.com/recall-dev/recall/transcript/gemini"
	"github.com/recall-dev/recall/transcript/opencode"
)

// Agent is what recall knows of one coding agent.
type Agent struct {
	Name string
	// Format reads its session files.
	Format transcript.Format
	// DefaultRoot is where it keeps sessions for the user whose home is
	// home ("" when it has no such place), with its env override.
	DefaultRoot func(getenv func(string) string, home string) string
	// Discover lists its session files under a root.
	Discover func(root string, warn func(string)) []transcript.Transcript
	// Resume is the commands that reopen a session whose session file is
	// file, run one after the other in its project directory.
	Resume func(session, file string) [][]string
	// WatchPaths are the few paths whose stat changes when any session
	// file under root is added or grows (the no-change check).
	WatchPaths func(root string) []string
	// Current, when the agent tells the commands it runs, is the id of
	// the session running recall (nil when it does not).
	Current func(getenv func(string) string) string
	// Reopens, when some of the agent's session files cannot be reopened
	// by Resume's command, says why the one at file cannot (nil error: it
	// can; nil func: every one can).
	Reopens func(file string) error
}

// others lists the agents besides Claude Code, in the order outputs
// list them. The table is made once and never changed: the indexer looks
// a file's format up (FormatOf) a few times per file, and making it anew
// each time was 1.7% of what a full index allocated (61 MB at 4 GB).
var others = sync.OnceValue(func() []Agent {
	return []Agent{
		{record.AgentCodex, codex.Format(), codex.DefaultRoot, codex.Discover, codex.ResumeCommand, codex.WatchPaths, codex.CurrentSession, codex.Reopens},
		{record.AgentGemini, gemini.Format(), gemini.DefaultRoot, gemini.Discover, gemini.ResumeCommand, gemini.WatchPaths, gemini.CurrentSession, gemini.Reopens},
		{record.AgentOpenCode, opencode.Format(), opencode.DefaultRoot, opencode.Discover, opencode.ResumeCommand, opencode.WatchPaths, nil, nil},
		{record.AgentAider, aider.Format(), aider.DefaultRoot, aider.Discover, aider.ResumeCommand, aider.WatchPaths, nil, nil},
	}
})

// Lookup is the agent named name (not Claude Code, whose reading is
// package transcript's own).
func Lookup(name string) (Agent, bool) {
	for _, a := range others() {
		if a.Name == name {
			return a, true
		}
	}
	return Agent{}, false
}

// Source is one place an agent's sessions are read from: its home or
// data folder, or a path given with --source AGENT:PATH.
type Source struct {
	Agent string
	Path  string
}

// String is the source as --source takes it.
func (s Source) String() string { return s.Agent + ":" + s.Path }

// ParseSource reads an AGENT:PATH source. ok is false for a plain path
// (a Claude Code projects folder) and for a name before the colon that
// is no agent's (a path that holds a colon), which stays a path.
func ParseSource(s string) (src Source, ok bool) {
	name, path, found := strings.Cut(s, ":")
	if !found || path == "" {
		return Source{}, false
	}
	if name == record.AgentClaude {
		return Source{record.AgentClaude, path}, true
	}
	if _, known := Lookup(name); !known {
		return Source{}, false
	}
	return Source{name, path}, true
}

// Defaults are the agents' default places that exist for the user whose
// home is home: those not there are left out, so a user of Claude Code
// alone pays nothing for the others.
func Defaults(getenv func(string) string, home string) []Source {
	var out []Source
	for _, a := range others() {
		root := a.DefaultRoot(getenv, home)
		if root == "" {
			continue
		}
		if _, err := os.Stat(root); err == nil {
			abs, err := filepath.Abs(root)
			if err == nil {
				out = append(out, Source{a.Name, abs})
			}
		}
	}
	return out
}

// Discover lists the session files of every source, each list sorted by
// path, sources in order.
func Discover(srcs []Source, warn func(string)) []transcript.Transcript {
	var out []transcript.Transcript
	for _, s := range srcs {
		a, ok := Lookup(s.Agent)
		if !ok {
			warn(fmt.Sprintf("%s: no agent %q", s.Path, s.Agent))
			continue
		}
		if _, err := os.Stat(s.Path); err != nil {
			warn(fmt.Sprintf("source %s: %v; nothing is read from it", s, err))
			continue
		}
		out = append(out, a.Discover(s.Path, warn)...)
	}
	return out
}

// FormatOf is the format that reads files of kind (record.KindOf);
// ok is false for Claude Code's own kinds.
func FormatOf(kind string) (transcript.Format, bool) {
	a, ok := Lookup(record.KindAgent(kind))
	return a.Format, ok
}

// InProjects lists the session files other agents keep inside project
// folders rather than in a home of their own (Aider's
// .aider.chat.history.md), in the project directories dirs: one stat
// each.
func InProjects(dirs []string) []transcript.Transcript {
	return aider.FindInProjects(dirs)
}

// CurrentSession is the id of the other agent's session that runs
// recall (as a shell command or MCP server of Codex, …), "" when none
// says so.
func CurrentSession(getenv func(string) string) string {
	for _, a := range others() {
		if a.Current != nil {
			if id := a.Current(getenv); id != "" {
				return id
			}
		}
	}
	return ""
}
