package search

import (
	"os"
	"slices"
	"sort"
	"time"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store/manifest"
)

// DefaultSessionList is how many sessions `recall sessions` (and the MCP
// tool) list when not told (-n).
const DefaultSessionList = 20

// SessionInfo is one line of `recall sessions`.
type SessionInfo struct {
	ID, Project      string
	First, Last      time.Time // zero when no row had a time
	Messages         int
	FirstPrompt      string // the first user prompt, whole
	Source           string // main transcript (first transcript if none)
	TranscriptExists bool
	Headless         bool   // a headless run (`claude -p`, an SDK): listed only when asked
	Title            string // the name it was given, "" if none
	Agent            string // the coding agent whose session it is (record.Agents names)
}

// ListSessions lists the indexed sessions newest first (by their last
// message), filtered by req's Projects, Since and Until (a session
// qualifies when it has messages in the range), at most req.Limit of them
// (0: all). It also returns how many sessions qualified. Only the shown
// sessions' first prompts are read from the rows.
func ListSessions(snap *snapshot.Snapshot, m *manifest.Manifest, req Request) ([]SessionInfo, int, error) {
	sums, err := snap.SessionSummaries()
	if err != nil {
		return nil, 0, err
	}
	kept := sums[:0]
	excluded := req.excluded()
	for _, s := range sums {
		if !excluded[s.ID] && sessionQualifies(&s, req) {
			kept = append(kept, s)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool {
		if kept[i].LastMs != kept[j].LastMs {
			return kept[i].LastMs > kept[j].LastMs
		}
		return kept[i].ID < kept[j].ID
	})
	total := len(kept)
	if req.Limit > 0 && len(kept) > req.Limit {
		kept = kept[:req.Limit]
	}
	if err := snap.FillFirstPrompts(kept); err != nil {
		return nil, 0, err
	}
	ids := make(map[string]bool, len(kept))
	for _, s := range kept {
		ids[s.ID] = true
	}
	titles, err := snap.Titles(ids)
	if err != nil {
		return nil, 0, err
	}
	files := m.SessionFiles()
	out := make([]SessionInfo, len(kept))
	for i, s := range kept {
		out[i] = SessionInfo{ID: s.ID, Project: s.Project, First: msTime(s.FirstMs), Last: msTime(s.LastMs),
			Messages: s.Messages, FirstPrompt: s.FirstPrompt, Headless: s.Headless(), Title: titles[s.ID], Agent: s.Agent}
		if f := files[s.ID]; len(f) > 0 {
			out[i].Source, out[i].TranscriptExists = f[0].Path, !f[0].Gone && exists(f[0].Path)
		} else if s.Source != "" {
			// A session of a file that holds many (an OpenCode
			// database, an Aider history), whose manifest entry names
			// only the last: the file its first row came from.
			st := m.File(s.Source)
			out[i].Source, out[i].TranscriptExists = s.Source, (st == nil || !st.Gone) && exists(s.Source)
		}
	}
	return out, total, nil
}

func sessionQualifies(s *snapshot.SessionSummary, req Request) bool {
	if req.excludesHeadless() && s.Headless() {
		return false
	}
	if !projectMatches(s.Project, req.Projects) {
		return false
	}
	if len(req.Agents) > 0 && !slices.Contains(req.Agents, record.AgentOf(s.Agent)) {
		return false
	}
	if !req.Since.IsZero() && (s.LastMs == 0 || s.LastMs < req.Since.UnixMilli()) {
		return false
	}
	if !req.Until.IsZero() && (s.FirstMs == 0 || s.FirstMs > req.Until.UnixMilli()) {
		return false
	}
	return true
}

func msTime(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
