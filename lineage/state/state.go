// Package state keeps what reading a running session's transcript found
// (package lineage) between calls, in the index directory: each call
// reads only the bytes appended since, and the prompt hook's small binary
// (cmd/recall-hint) reads the running session's lineage from it without
// opening the index.
package state

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// State is what reading a running transcript found so far; it is kept
// between calls (Cache) so that each call reads only the bytes appended
// since.
type State struct {
	Path    string   `json:"path"`
	Session string   `json:"session"`
	Offset  int64    `json:"offset"`
	Lines   int      `json:"lines"`
	Project string   `json:"project,omitempty"`
	Keys    []uint64 `json:"keys,omitempty"` // the rows' keys (and legacy keys), at most maxKeys
	From    []string `json:"from,omitempty"` // origins the records name
	// KeysBytes is the index's committed keys length the Sessions were
	// looked up against: when it changes, the keys are looked up again.
	KeysBytes int64    `json:"keys_bytes"`
	Sessions  []string `json:"sessions,omitempty"`
	// FirstPrompt is the transcript's first typed prompt: what a hint on
	// a resumed session's start searches.
	FirstPrompt string `json:"first_prompt,omitempty"`
}

// Dir is where Load and Save keep each running session's state, in
// the index directory.
const Dir = "lineage"

// Load reads the state Save kept for session in indexDir; nil when there
// is none (or it does not read).
func Load(indexDir, session string) *State {
	if !Plausible(session) {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(indexDir, Dir, session+".json"))
	if err != nil {
		return nil
	}
	var st State
	if json.Unmarshal(data, &st) != nil {
		return nil
	}
	return &st
}

// Save keeps st for the next call in this or another process (the
// prompt hook runs once a prompt). Failing to save costs only a re-read.
func Save(indexDir string, st *State) {
	if st == nil || !Plausible(st.Session) {
		return
	}
	dir := filepath.Join(indexDir, Dir)
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	data, err := json.Marshal(st)
	if err != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(dir, st.Session+".json")) != nil {
		_ = os.Remove(tmp.Name())
	}
}

// Plausible keeps a session id that is a safe file name.
func Plausible(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
