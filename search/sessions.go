package search

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/store"
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
}

// ListSessions lists the indexed sessions newest first (by their last
// message), filtered by req's Projects, Since and Until (a session
// qualifies when it has messages in the range), at most req.Limit of them
// (0: all). It also returns how many sessions qualified. Only the shown
// sessions' first prompts are read from the rows.
func ListSessions(snap *store.Snapshot, m *store.Manifest, req Request) ([]SessionInfo, int, error) {
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
			Messages: s.Messages, FirstPrompt: s.FirstPrompt, Headless: s.Headless(), Title: titles[s.ID]}
		if f := files[s.ID]; len(f) > 0 {
			out[i].Source, out[i].TranscriptExists = f[0].Path, !f[0].Gone && exists(f[0].Path)
		}
	}
	return out, total, nil
}

func sessionQualifies(s *store.SessionSummary, req Request) bool {
	if req.excludesHeadless() && s.Headless() {
		return false
	}
	if !projectMatches(s.Project, req.Projects) {
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

// promptWidth is how much of a first prompt `recall sessions` prints, in
// characters, on a terminal line; JSON and markdown get DefaultContext.
const promptWidth = 100

// trimPrompt is a prompt on one line, cut at width characters.
func trimPrompt(text string, width int) string {
	return rank.MakeSnippet(text, nil, width).String()
}

// JSONSessionInfo is one line of `recall sessions --json`
// (docs/json-output.md).
type JSONSessionInfo struct {
	SessionID        string `json:"session_id"`
	Title            string `json:"title,omitempty"`
	Project          string `json:"project"`
	FirstTimestamp   string `json:"first_timestamp"`
	LastTimestamp    string `json:"last_timestamp"`
	Messages         int    `json:"messages"`
	FirstPrompt      string `json:"first_prompt"`
	Source           string `json:"source"`
	TranscriptExists bool   `json:"transcript_exists"`
	Headless         bool   `json:"headless,omitempty"`
}

// SessionsJSON is sessions as `recall sessions --json` prints them.
func SessionsJSON(sessions []SessionInfo) []JSONSessionInfo {
	out := make([]JSONSessionInfo, len(sessions))
	for i, s := range sessions {
		out[i] = JSONSessionInfo{SessionID: s.ID, Title: s.Title, Project: s.Project, FirstTimestamp: isoTime(s.First), LastTimestamp: isoTime(s.Last),
			Messages: s.Messages, FirstPrompt: trimPrompt(s.FirstPrompt, DefaultContext), Source: s.Source, TranscriptExists: s.TranscriptExists,
			Headless: s.Headless}
	}
	return out
}

// WriteSessions prints sessions as "human" (two lines each: times, id,
// project, size; then the first prompt), "markdown" or "json" (one object
// per line).
func WriteSessions(w io.Writer, sessions []SessionInfo, format string, color bool) error {
	var b strings.Builder
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for _, s := range SessionsJSON(sessions) {
			if err := enc.Encode(s); err != nil {
				return err
			}
		}
		return nil
	case "markdown":
		if len(sessions) > 0 {
			fmt.Fprintf(&b, "%s\n## recall: sessions, newest first\n\n", filter.OutputMarker)
		}
		for _, s := range sessions {
			fmt.Fprintf(&b, "- `%s` %s%s, %s, %d %s%s: %s\n", Safe(s.ID), markdownTitle(s.Title), Safe(displayProject(s.Project)), timeRange(s.First, s.Last),
				s.Messages, plural(s.Messages, "message", "messages"), goneNote(s.TranscriptExists)+headlessNote(s.Headless), Safe(trimPrompt(s.FirstPrompt, DefaultContext)))
		}
	default:
		p := painter{on: color}
		for _, s := range sessions {
			fmt.Fprintf(&b, "%s  %s  %s  %d %s%s\n", p.paint(styleDim, timeRange(s.First, s.Last)), p.paint(styleBold, Safe(s.ID)),
				Safe(displayProject(s.Project)), s.Messages, plural(s.Messages, "message", "messages"), goneNote(s.TranscriptExists)+headlessNote(s.Headless))
			prompt := trimPrompt(s.FirstPrompt, promptWidth)
			if prompt == "" {
				prompt = "(no prompt indexed)"
			}
			if s.Title != "" {
				prompt = trimPrompt(s.Title+" — "+s.FirstPrompt, promptWidth)
			}
			fmt.Fprintf(&b, "    %s\n", Safe(prompt))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func headlessNote(headless bool) string {
	if headless {
		return " (headless run)"
	}
	return ""
}

func goneNote(exists bool) string {
	if exists {
		return ""
	}
	return " (transcript deleted; in the index)"
}
