package render

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/search/show"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/rank"
)

// JSONShown is `recall show --json`: one object. docs/json-output.md
// documents the fields; like the search's, they are a contract.
type JSONShown struct {
	SessionID        string             `json:"session_id"`
	Title            string             `json:"title,omitempty"`
	Headless         bool               `json:"headless,omitempty"`
	Agent            string             `json:"agent"`
	Project          string             `json:"project"`
	Source           string             `json:"source"`
	TranscriptExists bool               `json:"transcript_exists"`
	FirstTimestamp   string             `json:"first_timestamp"`
	LastTimestamp    string             `json:"last_timestamp"`
	Total            int                `json:"messages_total"`
	FirstShown       int                `json:"first_shown"` // 1-based position of messages[0] in the session
	Messages         []JSONShownMessage `json:"messages"`
	Notes            []string           `json:"notes,omitempty"`
	Warnings         []string           `json:"warnings,omitempty"`
}

// JSONShownMessage is one message of JSONShown.
type JSONShownMessage struct {
	Type      string `json:"type"`
	Role      string `json:"role"`
	AgentID   string `json:"agent_id,omitempty"`
	Timestamp string `json:"timestamp"`
	Source    string `json:"source"`
	Line      int    `json:"line"`
	UUID      string `json:"uuid,omitempty"`
	Text      string `json:"text"`
	Hit       bool   `json:"hit"`
	// Highlights are [start, end) byte offsets of Text matching --query.
	Highlights [][2]int `json:"highlights,omitempty"`
}

// ShownJSON is sh as `recall show --json` prints it, its warnings' remedies
// as w words them.
func ShownJSON(sh *show.Shown, w problem.Wording) JSONShown {
	js := JSONShown{
		SessionID: sh.Session, Title: sh.Title, Headless: sh.Headless, Agent: record.AgentOf(sh.Agent), Project: sh.Project, Source: sh.Source, TranscriptExists: sh.TranscriptExists,
		FirstTimestamp: isoTime(sh.First), LastTimestamp: isoTime(sh.Last), Total: sh.Total, FirstShown: sh.Start + 1,
		Messages: make([]JSONShownMessage, len(sh.Messages)), Notes: sh.Notes, Warnings: problem.SayAll(sh.Warnings, w),
	}
	for i := range sh.Messages {
		m := &sh.Messages[i]
		jm := JSONShownMessage{Type: m.Type, Role: m.Role, AgentID: m.AgentID, Timestamp: m.Timestamp, Source: m.Source,
			Line: m.Line, UUID: m.UUID, Text: m.Text, Hit: m.Hit}
		for _, h := range m.Highlights {
			jm.Highlights = append(jm.Highlights, [2]int{h.Start, h.End})
		}
		js.Messages[i] = jm
	}
	return js
}

// WriteShown prints sh as "human" (coloured when color), "markdown" or
// "json" (its warnings worded by say).
func WriteShown(w io.Writer, sh *show.Shown, format string, color bool, say problem.Wording) error {
	var b strings.Builder
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(ShownJSON(sh, say))
	case "markdown":
		writeShownMarkdown(&b, sh)
	default:
		writeShownHuman(&b, sh, painter{on: color})
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeShownHuman prints a header in the shape of a search result's, so
// that output pasted back into a conversation is recognised as recall's
// (filter.IsRecallOutput), then each message: its label, time and
// evidence, and its whole text indented. The message asked for is marked
// with '>'.
func writeShownHuman(b *strings.Builder, sh *show.Shown, p painter) {
	fmt.Fprintf(b, "%s %s%s | %d %s | %s | %s%s\n", p.paint(styleBold, "[1/1] "+Safe(shortID(sh.Session))+" •"), titlePrefix(sh.Title),
		Safe(displayProject(sh.Project)), sh.Total, plural(sh.Total, "message", "messages"), timeRange(sh.First, sh.Last), transcriptState(sh),
		agentLabel(sh.Agent)+headlessNote(sh.Headless))
	fmt.Fprintf(b, "  %s\n", p.paint(styleDim, "session "+Safe(sh.Session)+"; "+shownRange(sh)))
	if sh.Start > 0 {
		fmt.Fprintf(b, "\n  %s\n", p.paint(styleDim, fmt.Sprintf("… %d earlier %s", sh.Start, plural(sh.Start, "message", "messages"))))
	}
	for i := range sh.Messages {
		m := &sh.Messages[i]
		mark := " "
		if m.Hit {
			mark = p.paint(styleBold, ">")
		}
		agent := ""
		if note := agentNote(m); note != "" {
			agent = note + "  "
		}
		fmt.Fprintf(b, "\n%s %s %s  %s%s\n", mark, p.paint(styleBold, typeLabel(m.Type)), p.paint(styleDim, localTime(m.Time)),
			agent, p.paint(styleDim, evidence(m.Source, m.Line)))
		b.WriteString(indent(highlightText(m.Text, m.Highlights, p), "      "))
	}
	if end := sh.Start + len(sh.Messages); end < sh.Total {
		fmt.Fprintf(b, "\n  %s\n", p.paint(styleDim, fmt.Sprintf("… %d more %s after (--full shows the whole session)", sh.Total-end, plural(sh.Total-end, "message", "messages"))))
	}
}

// writeShownMarkdown prints a block for an agent's context, opening with
// recall's output marker.
func writeShownMarkdown(b *strings.Builder, sh *show.Shown) {
	fmt.Fprintf(b, "%s\n## recall show: %ssession `%s` — %s%s\n\n", filter.OutputMarker, markdownTitle(sh.Title), Safe(sh.Session),
		Safe(filepath.Base(displayProject(sh.Project))), agentLabel(sh.Agent)+headlessNote(sh.Headless))
	fmt.Fprintf(b, "%s, %d %s; transcript `%s` (%s); %s\n\n", timeRange(sh.First, sh.Last), sh.Total,
		plural(sh.Total, "message", "messages"), Safe(sh.Source), transcriptState(sh), shownRange(sh))
	for _, n := range sh.Notes {
		fmt.Fprintf(b, "> %s\n\n", Safe(n))
	}
	for i := range sh.Messages {
		m := &sh.Messages[i]
		hit := ""
		if m.Hit {
			hit = " ← the message asked for"
		}
		agent := ""
		if note := agentNote(m); note != "" {
			agent = " (" + note + ")"
		}
		fmt.Fprintf(b, "- **%s**%s %s (`%s`)%s:\n", Safe(m.Type), agent, localTime(m.Time), evidence(m.Source, m.Line), hit)
		b.WriteString(indent(SafeText(m.Text), "  "))
	}
}

// agentNote names the subagent and the role of a subagent's row, ""
// for other rows.
func agentNote(m *show.Message) string {
	if m.AgentID == "" && m.Type != "agent" {
		return ""
	}
	return fmt.Sprintf("subagent %s, %s", Safe(m.AgentID), Safe(m.Role))
}

func transcriptState(sh *show.Shown) string {
	if sh.TranscriptExists {
		return "transcript on disk"
	}
	return "transcript deleted, read from the index"
}

func shownRange(sh *show.Shown) string {
	if len(sh.Messages) == 0 {
		return "no messages shown"
	}
	if len(sh.Messages) == sh.Total {
		return "all messages shown"
	}
	return fmt.Sprintf("messages %d–%d of %d shown", sh.Start+1, sh.Start+len(sh.Messages), sh.Total)
}

// timeRange is "2026-03-01 10:00 – 10:03", or with both dates when they
// differ.
func timeRange(first, last time.Time) string {
	a, z := localTime(first), localTime(last)
	if first.IsZero() || last.IsZero() {
		return a + " – " + z
	}
	if a == z {
		return a
	}
	if first.Local().Format("2006-01-02") == last.Local().Format("2006-01-02") {
		return a + " – " + last.Local().Format("15:04")
	}
	return a + " – " + z
}

// highlightText makes text printable, keeping its lines and tabs, and
// paints the highlighted spans.
func highlightText(text string, spans []rank.Span, p painter) string {
	var b strings.Builder
	last := 0
	for _, h := range spans {
		if h.Start < last || h.End > len(text) {
			continue
		}
		b.WriteString(SafeText(text[last:h.Start]))
		b.WriteString(p.paint(styleMatch, SafeText(text[h.Start:h.End])))
		last = h.End
	}
	b.WriteString(SafeText(text[last:]))
	return b.String()
}

// indent prefixes every line of text and ends it with a newline.
func indent(text, prefix string) string {
	text = strings.TrimRight(text, "\n")
	return prefix + strings.ReplaceAll(text, "\n", "\n"+prefix) + "\n"
}
