package indexer

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// transcript is one JSONL file found under a source root.
type transcript struct {
	Path    string
	Kind    string // KindMain, KindSubagent or KindAgentOld
	Session string // known from the path for main and subagent files
	Agent   string // subagent id for subagent files
	Info    fs.FileInfo
}

// discover lists every transcript under the roots, sorted by path so that a
// session's main file comes before its subagents (".jsonl" sorts before
// "/") and every run processes files in the same order.
//
// A root is a projects folder (~/.claude/projects): one folder per project.
// A root that holds transcripts directly is taken as a single project folder,
// so `--source ~/.claude/projects/-home-me-app` works too.
func discover(roots []string, warn func(string)) []transcript {
	var out []transcript
	for _, root := range roots {
		out = append(out, discoverRoot(root, warn)...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func discoverRoot(root string, warn func(string)) []transcript {
	entries, err := os.ReadDir(root)
	if err != nil {
		if !os.IsNotExist(err) {
			warn(fmt.Sprintf("read source %s: %v", root, err))
		}
		return nil
	}
	if holdsTranscripts(entries) {
		return discoverProject(root, warn)
	}
	var out []transcript
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, discoverProject(filepath.Join(root, e.Name()), warn)...)
		}
	}
	return out
}

func holdsTranscripts(entries []os.DirEntry) bool {
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			return true
		}
	}
	return false
}

// discoverProject finds <session>.jsonl, the older project-level
// agent-<id>.jsonl, and <session>/subagents/**/agent-<id>.jsonl. Folders
// that are not transcripts (tool-results, memory) are never entered.
func discoverProject(dir string, warn func(string)) []transcript {
	entries, err := os.ReadDir(dir)
	if err != nil {
		warn(fmt.Sprintf("read project %s: %v", dir, err))
		return nil
	}
	var out []transcript
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		switch {
		case e.Type().IsRegular() && strings.HasSuffix(name, ".jsonl"):
			out = appendFile(out, path, warn)
		case e.IsDir() && name != "memory":
			out = append(out, discoverSubagents(path, name, warn)...)
		}
	}
	return out
}

func discoverSubagents(sessionDir, session string, warn func(string)) []transcript {
	root := filepath.Join(sessionDir, "subagents")
	var out []transcript
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if !os.IsNotExist(err) {
				warn(fmt.Sprintf("read %s: %v", path, err))
			}
			return nil
		}
		name := d.Name()
		if d.Type().IsRegular() && strings.HasPrefix(name, "agent-") && strings.HasSuffix(name, ".jsonl") {
			out = appendFile(out, path, warn)
			if n := len(out); n > 0 && out[n-1].Path == path {
				out[n-1].Session = session
			}
		}
		return nil
	})
	if err != nil {
		warn(fmt.Sprintf("walk %s: %v", root, err))
	}
	return out
}

// appendFile classifies one .jsonl by its name and place and stats it.
func appendFile(out []transcript, path string, warn func(string)) []transcript {
	info, err := os.Stat(path)
	if err != nil {
		warn(fmt.Sprintf("stat %s: %v", path, err))
		return out
	}
	t := classify(path)
	t.Info = info
	return append(out, t)
}

func classify(path string) transcript {
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	inSubagents := filepath.Base(filepath.Dir(path)) == "subagents" ||
		strings.Contains(filepath.ToSlash(path), "/subagents/")
	switch {
	case strings.HasPrefix(name, "agent-") && inSubagents:
		return transcript{Path: path, Kind: KindSubagent, Agent: strings.TrimPrefix(name, "agent-")}
	case strings.HasPrefix(name, "agent-"):
		return transcript{Path: path, Kind: KindAgentOld, Agent: strings.TrimPrefix(name, "agent-")}
	default:
		return transcript{Path: path, Kind: KindMain, Session: name}
	}
}
