package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/search"
)

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
	Agent            string `json:"agent"`
}

// SessionsJSON is sessions as `recall sessions --json` prints them.
func SessionsJSON(sessions []search.SessionInfo) []JSONSessionInfo {
	out := make([]JSONSessionInfo, len(sessions))
	for i, s := range sessions {
		out[i] = JSONSessionInfo{SessionID: s.ID, Title: s.Title, Project: s.Project, FirstTimestamp: isoTime(s.First), LastTimestamp: isoTime(s.Last),
			Messages: s.Messages, FirstPrompt: trimPrompt(s.FirstPrompt, search.DefaultContext), Source: s.Source, TranscriptExists: s.TranscriptExists,
			Headless: s.Headless, Agent: record.AgentOf(s.Agent)}
	}
	return out
}

// WriteSessions prints sessions as "human" (two lines each: times, id,
// project, size; then the first prompt), "markdown" or "json" (one object
// per line).
func WriteSessions(w io.Writer, sessions []search.SessionInfo, format string, color bool) error {
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
				s.Messages, plural(s.Messages, "message", "messages"), agentLabel(s.Agent)+goneNote(s.TranscriptExists)+headlessNote(s.Headless), Safe(trimPrompt(s.FirstPrompt, search.DefaultContext)))
		}
	default:
		p := painter{on: color}
		for _, s := range sessions {
			fmt.Fprintf(&b, "%s  %s  %s  %d %s%s\n", p.paint(styleDim, timeRange(s.First, s.Last)), p.paint(styleBold, Safe(s.ID)),
				Safe(displayProject(s.Project)), s.Messages, plural(s.Messages, "message", "messages"), agentLabel(s.Agent)+goneNote(s.TranscriptExists)+headlessNote(s.Headless))
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
