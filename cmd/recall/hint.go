package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/recall-dev/recall/claude"
	"github.com/recall-dev/recall/hint"
	"github.com/recall-dev/recall/hint/judge"
	"github.com/recall-dev/recall/indexer"
	"github.com/recall-dev/recall/internal/parallel"
	"github.com/recall-dev/recall/lineage"
	"github.com/recall-dev/recall/store"
)

// hintCmd is `recall hint`: the prompt hint the UserPromptSubmit hook
// gives, for a prompt typed here, with --explain saying why it was given
// or not. It reads the index as committed, as the hook does.
type hintCmd struct {
	Prompt  []string `arg:"" optional:"" placeholder:"PROMPT" help:"The prompt, as it would be typed into Claude Code."`
	Explain bool     `help:"Also print why the hint was shown or not (the bar and the measures)."`
}

// Run prints the hint and exits 0, or exits 1 when no session clears the
// bar (with --explain, why on stderr).
func (c *hintCmd) Run(g *Globals) error {
	cfg, err := g.config()
	if err != nil {
		return err
	}
	h, err := findHint(cfg, strings.Join(c.Prompt, " "), g.env.cwd, "", "")
	if err != nil {
		return err
	}
	fmt.Fprint(g.env.stdout, hint.Write(h))
	if c.Explain {
		fmt.Fprintln(g.env.stderr, "recall: hint", h.Why)
	}
	if !h.Shown {
		return noMatchError{}
	}
	return nil
}

// hintDeadline bounds the hook's hint: past it the hook prints nothing.
// A prompt must never wait on recall.
const hintDeadline = 1500 * time.Millisecond

// hookHint is the hook's prompt hint: the prompt of a UserPromptSubmit,
// or on SessionStart the running transcript's first prompt, searched in
// the committed index (never updated here) under hintDeadline.
func hookHint(cfg indexer.Config) func(claude.Payload) (string, string) {
	return func(p claude.Payload) (string, string) {
		type result struct {
			h   *hint.Hint
			err error
		}
		done := make(chan result, 1)
		var h *hint.Hint
		parallel.Go(func() (err error) {
			prompt := p.Prompt
			if p.HookEventName == claude.EventSessionStart {
				prompt = ""
			}
			h, err = findHint(cfg, prompt, p.Cwd, p.SessionID, p.TranscriptPath)
			return err
		}, func(err error) { done <- result{h, err} })
		select {
		case r := <-done:
			if r.err != nil {
				return "", "error: " + r.err.Error()
			}
			return hint.Write(r.h), r.h.Why
		case <-time.After(hintDeadline):
			return "", fmt.Sprintf("gave up after %v", hintDeadline)
		}
	}
}

// findHint searches prompt ("" with a transcript: its first prompt) in
// the committed index, leaving out session and its lineage.
func findHint(cfg indexer.Config, prompt, cwd, session, transcriptPath string) (*hint.Hint, error) {
	if session == "" {
		session = cfg.CurrentSession
	}
	if why := hint.Skip(prompt); why != "" && (prompt != "" || transcriptPath == "") {
		return &hint.Hint{Measures: judge.Measures{Why: "not searched: " + why}}, nil
	}
	snap, err := store.Open(cfg.IndexDir).Snapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	st := lineage.Running(cfg.IndexDir, cfg.Sources, snap, session, transcriptPath, cwd)
	if prompt == "" && st != nil {
		prompt = st.FirstPrompt
	}
	var exclude []string
	if st != nil {
		exclude = st.Sessions
	}
	return hint.Find(snap, hint.Options{Prompt: prompt, Cwd: cwd, Current: session, Exclude: exclude, Bar: hint.DefaultBar})
}
