package manifest

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/recall-dev/recall/record"
)

// ErrNoSession is returned when no indexed session matches an id or prefix.
var ErrNoSession = errors.New("no indexed session")

// AmbiguousError is returned when an id prefix names several sessions.
type AmbiguousError struct {
	Prefix   string
	Sessions []string // the sessions it names, sorted (at most a few)
	Count    int      // how many it names
}

func (e *AmbiguousError) Error() string {
	more := ""
	if e.Count > len(e.Sessions) {
		more = fmt.Sprintf(" and %d more", e.Count-len(e.Sessions))
	}
	return fmt.Sprintf("session id prefix %q names %d sessions (%s%s): give more of the id", e.Prefix, e.Count, strings.Join(e.Sessions, ", "), more)
}

// ResolveSession returns the indexed session a whole id or a unique
// prefix names, from the manifest's transcripts (files that added rows).
func (m *Manifest) ResolveSession(prefix string) (string, error) {
	if prefix == "" {
		return "", fmt.Errorf("%w: empty session id", ErrNoSession)
	}
	found := map[string]bool{}
	for _, f := range m.byPath {
		if f.Rows > 0 && record.SessionHasPrefix(f.Session, prefix) {
			if f.Session == prefix || record.SessionIDOf(f.Session) == prefix {
				return f.Session, nil
			}
			found[f.Session] = true
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%w has an id starting with %q", ErrNoSession, prefix)
	case 1:
		for id := range found {
			return id, nil
		}
	}
	ids := make([]string, 0, len(found))
	for id := range found {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	const shown = 5
	return "", &AmbiguousError{Prefix: prefix, Sessions: ids[:min(len(ids), shown)], Count: len(ids)}
}

// SessionFiles lists the transcripts of each session that added rows,
// main transcripts first, those on disk before those gone, then by path. A session whose every such file
// is gone, while a session file of its that added none is on disk (a
// Codex rollout moved to archived_sessions/ and compressed there: its
// rows were the ones read from where it was), lists that file first:
// the session's transcript is still there.
func (m *Manifest) SessionFiles() map[string][]*record.FileState {
	out := map[string][]*record.FileState{}
	moved := map[string]*record.FileState{} // per session, a live session file that added no row
	for _, f := range m.byPath {
		switch {
		case f.Verdict == record.VerdictFork:
		case f.Rows > 0:
			out[f.Session] = append(out[f.Session], f)
		case !f.Gone && record.IsSessionKind(f.Kind) && (moved[f.Session] == nil || f.Path < moved[f.Session].Path):
			moved[f.Session] = f
		}
	}
	for id, files := range out {
		if mv := moved[id]; mv != nil && allGone(files) {
			out[id] = append(files, mv)
		}
	}
	for _, files := range out {
		sort.Slice(files, func(i, j int) bool {
			if record.IsSessionKind(files[i].Kind) != record.IsSessionKind(files[j].Kind) {
				return record.IsSessionKind(files[i].Kind)
			}
			if files[i].Gone != files[j].Gone {
				return !files[i].Gone
			}
			return files[i].Path < files[j].Path
		})
	}
	return out
}

// allGone reports whether every one of files is gone.
func allGone(files []*record.FileState) bool {
	for _, f := range files {
		if !f.Gone {
			return false
		}
	}
	return true
}
