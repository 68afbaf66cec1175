// Package lineage finds the sessions a running session descends from: a
// fork (`--fork-session`, /branch), an old-style resume that copied the
// history under a new id, or a chain of them copies its ancestors'
// messages with their uuids. Those ancestors hold what the running
// session said, so searches, the prompt hint and the MCP tools leave them
// out with the running session itself.
//
// The running session is not indexed while it runs, but its transcript
// is on disk: its rows, extracted as the indexer would, carry the keys
// (record.MessageKey, and record.LegacyRowKey for an index keyed under
// rule 0) that name, through the index's keys file, the generation and
// so the session each copied message was indexed from. A chain of forks
// copies everything from its ancestors, so one lookup finds them all.
// Records that carry forkedFrom, or a sessionId that is not the
// transcript's own, name their origin directly (transcript.Extracted.From).
package lineage

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"

	"github.com/recall-dev/recall/lineage/state"
	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/transcript"
)

// maxKeys bounds the keys a lineage keeps and looks up: copies come first
// in a transcript (a fork writes its ancestors' messages before its own),
// so the first rows decide, and a long session costs no more than this.
const maxKeys = 8192

// State is what reading a running transcript found so far (state.State).
type State = state.State

// CacheDir is where Load and Save keep each running session's state.
const CacheDir = state.Dir

// Load reads the state Save kept for session in indexDir (state.Load).
func Load(indexDir, session string) *State { return state.Load(indexDir, session) }

// Save keeps st for the next call (state.Save).
func Save(indexDir string, st *State) { state.Save(indexDir, st) }

// Of returns the running session's ancestors in the index snap: the
// sessions it shares copied messages with, sorted, never itself. path is
// its transcript. prev, when it is a state of the same transcript, is
// continued from: only the bytes appended since are read. The new state
// is returned for the next call. A transcript that cannot be read names
// no ancestor (and the state says so by not advancing).
func Of(snap *snapshot.Snapshot, path, session string, prev *State) (*State, error) {
	st := &State{Path: path, Session: session}
	if prev != nil && prev.Path == path && prev.Session == session {
		c := *prev
		c.Keys, c.From = slices.Clone(prev.Keys), slices.Clone(prev.From)
		st = &c
	}
	grew := false
	if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() && info.Size() > st.Offset {
		res := transcript.Read(transcript.Work{
			T:     transcript.Transcript{Path: path, Kind: record.KindMain, Session: session},
			State: record.FileState{Offset: st.Offset, Lines: st.Lines, Session: session, Project: st.Project},
		}, "", bufio.NewReaderSize(nil, 64<<10))
		if res.Err == nil && !res.Rewritten && !res.Binary {
			legacy := snap.M.KeyRule < record.KeyRule
			for i := range res.Rows {
				r := &res.Rows[i]
				if st.FirstPrompt == "" && r.Type == "user" && r.AgentID == "" {
					st.FirstPrompt = r.Text
				}
				if r.From != "" && r.From != session && !slices.Contains(st.From, r.From) {
					st.From = append(st.From, r.From)
				}
				if r.Key == 0 || len(st.Keys) >= maxKeys {
					continue
				}
				st.Keys = append(st.Keys, r.Key)
				if legacy {
					st.Keys = append(st.Keys, record.LegacyRowKey(r.UUID, r.Block))
				}
				grew = true
			}
			st.Offset, st.Lines, st.Project = res.Offset, res.Lines, res.Project
		}
	}
	if !grew && prev != nil && st.KeysBytes == snap.M.KeysBytes && st.Sessions != nil {
		return st, nil
	}
	sessions, err := ancestors(snap, st.Keys, session)
	if err != nil {
		return st, err
	}
	for _, f := range st.From {
		if !slices.Contains(sessions, f) {
			sessions = append(sessions, f)
		}
	}
	slices.Sort(sessions)
	st.Sessions, st.KeysBytes = append([]string{}, sessions...), snap.M.KeysBytes
	return st, nil
}

// ancestors are the sessions whose live generations hold keys.
func ancestors(snap *snapshot.Snapshot, keys []uint64, self string) ([]string, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	gens, err := snap.KeyGenerations(keys)
	if err != nil || len(gens) == 0 {
		return nil, err
	}
	want := map[uint32]bool{}
	for _, g := range gens {
		if !snap.Dead(g) {
			want[g] = true
		}
	}
	// The snapshot's manifest is its head alone; the file states that map
	// generations to sessions are read from the committed manifest.
	m := snap.M
	if m.FileCount() == 0 {
		var err error
		if m, err = store.Open(snap.Dir).Manifest(); err != nil {
			return nil, err
		}
	}
	var out []string
	for _, f := range m.Files() {
		if want[f.Gen] && f.Session != "" && f.Session != self && !slices.Contains(out, f.Session) {
			out = append(out, f.Session)
		}
	}
	return out, nil
}

// TranscriptOf is the transcript of a running session: the path a hook
// payload gives, else the one a project folder of sources holds
// (<source>/<project>/<session>.jsonl); "" when none is found.
func TranscriptOf(sources []string, session, cwd string) string {
	if !state.Plausible(session) {
		return ""
	}
	name := session + ".jsonl"
	if cwd != "" {
		for _, src := range sources {
			if p := filepath.Join(src, transcript.ProjectSlug(cwd), name); isTranscript(p) {
				return p
			}
		}
	}
	// Not in its cwd's folder (the session changed directory): a stat in
	// each project folder, not a listing of each (a folder holds hundreds
	// of transcripts, and a listing of them all cost a prompt hook 40 ms
	// on a 1 GB tree).
	for _, src := range sources {
		folders, err := os.ReadDir(src)
		if err != nil {
			continue
		}
		for _, f := range folders {
			if p := filepath.Join(src, f.Name(), name); isTranscript(p) {
				return p
			}
		}
	}
	return ""
}

// isTranscript reports whether path names a regular file, as the readers
// take one (transcript.StatFile, following links).
func isTranscript(path string) bool {
	_, err := transcript.StatFile(path)
	return err == nil
}

// Running is the lineage of the running session (nil when none runs or
// its transcript is not found among sources), continued from and kept in
// indexDir's cache, so each call reads only what was appended.
func Running(indexDir string, sources []string, snap *snapshot.Snapshot, session, path, cwd string) *State {
	if session == "" {
		return nil
	}
	if path == "" {
		path = TranscriptOf(sources, session, cwd)
	}
	if path == "" {
		return nil
	}
	prev := Load(indexDir, session)
	st, err := Of(snap, path, session, prev)
	if err != nil {
		return st
	}
	if prev == nil || st.Offset != prev.Offset || st.KeysBytes != prev.KeysBytes {
		Save(indexDir, st)
	}
	return st
}

// RunningSessions is the running session's lineage for a search that
// opens its own snapshot (the CLI's search, the MCP tools): the sessions
// it descends from and itself, nil when none runs.
func RunningSessions(indexDir string, sources []string, session, cwd string) []string {
	if session == "" {
		return nil
	}
	snap, err := store.Open(indexDir).Snapshot()
	if err != nil {
		return nil
	}
	defer snap.Close()
	if st := Running(indexDir, sources, snap, session, "", cwd); st != nil {
		return st.Sessions
	}
	return nil
}
