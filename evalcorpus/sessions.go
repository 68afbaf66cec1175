package evalcorpus

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// writer builds one session's turns with a moving clock.
type writer struct {
	r     *rand.Rand
	v     *vocabulary
	proj  project
	at    time.Time
	turns []Turn
}

func (g *generator) newWriter(r *rand.Rand, dir string, start time.Time) *writer {
	return &writer{r: r, v: g.vocab, proj: g.projects[dir], at: start}
}

// tick moves the clock by a plausible gap between two transcript lines.
func (w *writer) tick() time.Time {
	w.at = w.at.Add(time.Duration(20+w.r.IntN(220)) * time.Second)
	return w.at
}

func (w *writer) user(text string) {
	w.turns = append(w.turns, Turn{At: w.tick(), Kind: User, Text: text})
}

func (w *writer) assistant(text string) {
	w.turns = append(w.turns, Turn{At: w.tick(), Kind: Assistant, Text: text})
}

// tool adds a tool call and its result a few seconds later.
func (w *writer) tool(name, key, value, output string) {
	at := w.tick()
	w.turns = append(w.turns,
		Turn{At: at, Kind: ToolUse, Tool: name, Input: map[string]string{key: value}},
		Turn{At: at.Add(time.Duration(1+w.r.IntN(9)) * time.Second), Kind: ToolResult, Text: output})
}

func (w *writer) session(id string) Session {
	return Session{ID: id, Cwd: w.proj.Dir, Turns: w.turns}
}

func (w *writer) pick(list []string) string { return list[w.r.IntN(len(list))] }

func (w *writer) component() string { return w.pick(w.proj.Components) }

func (w *writer) file() string { return w.proj.Dir + "/" + w.pick(w.proj.Files) }

// fill replaces a template's slots (see vocabulary) with drawn values.
func (w *writer) fill(template, mention string) string {
	return strings.NewReplacer(
		"{component}", w.component(),
		"{file}", w.pick(w.proj.Files),
		"{n}", strconv.Itoa(2+w.r.IntN(60)),
		"{mention}", mention,
	).Replace(template)
}

// choreAsk is a user prompt about everyday work in the project.
func (w *writer) choreAsk() string { return w.fill(w.pick(w.v.chores), "") }

// filler is an assistant reply of n sentences from the shared vocabulary,
// with mention (if any) placed among them as a passing remark.
func (w *writer) filler(n int, mention string) string {
	sentences := make([]string, 0, n+1)
	for range n {
		sentences = append(sentences, w.fill(w.pick(w.v.fillerSentences), ""))
	}
	if mention != "" {
		at := w.r.IntN(len(sentences) + 1)
		remark := w.fill(w.pick(w.v.mentionSentences), mention)
		sentences = append(sentences[:at], append([]string{remark}, sentences[at:]...)...)
	}
	return strings.Join(sentences, " ")
}

// chore adds one exchange of everyday work: a prompt, a reply or two, a
// test run, sometimes a follow-up. mention is asked for each reply.
func (w *writer) chore(mention func() string) {
	w.user(w.choreAsk())
	w.assistant(w.filler(2+w.r.IntN(3), mention()))
	w.tool("Bash", "command", w.proj.Test, w.pick(w.v.shellOutputs))
	if w.r.IntN(2) == 0 {
		w.user(w.fill(w.pick(w.v.followUps), ""))
		w.assistant(w.filler(1+w.r.IntN(3), mention()))
	}
}

func noMention() string { return "" }

// workSession is the session in which a topic's work was done, in dir:
// the target, or its twin in another project.
func (g *generator) workSession(t Topic, dir, id string, start time.Time, r *rand.Rand) Session {
	w := g.newWriter(r, dir, start)
	if r.IntN(3) == 0 {
		w.chore(noMention) // sessions often start with something else
	}
	w.user(t.Ask)
	first := t.Answer[0]
	if t.Code != "" {
		first += "\n\n```\n" + t.Code + "\n```"
	}
	w.assistant(first)
	w.tool("Edit", "file_path", w.file(), "The file has been updated successfully.")
	if t.Command != "" {
		w.tool("Bash", "command", t.Command, w.pick(w.v.shellOutputs))
	}
	for _, a := range t.Answer[1:] {
		w.assistant(a)
	}
	w.user(t.Follow)
	w.assistant(t.Close)
	for n := r.IntN(3); n > 0; n-- {
		w.chore(noMention)
	}
	return w.session(id)
}

// fork is a resumed copy of s, hours later: every uuid differs (they are
// derived from the new id) and one reply is added at the end.
func (g *generator) fork(s Session, topic string, r *rand.Rand) Session {
	shift := time.Duration(2+r.IntN(28)) * time.Hour
	turns := make([]Turn, len(s.Turns), len(s.Turns)+1)
	for i, t := range s.Turns {
		t.At = t.At.Add(shift)
		turns[i] = t
	}
	w := g.newWriter(r, s.Cwd, turns[len(turns)-1].At)
	w.assistant(w.filler(2, ""))
	return Session{ID: g.sessionID("fork", topic), Cwd: s.Cwd, Turns: append(turns, w.turns...)}
}

// passingSession is a recent chore session whose long replies each mention
// the topic once: the classic tool ranked it first by match count.
func (g *generator) passingSession(t Topic, r *rand.Rand) Session {
	dir := t.Project
	if r.IntN(2) == 0 {
		dir = g.otherProject(r, t.Project)
	}
	w := g.newWriter(r, dir, g.daysAgo(r, 1, 30))
	w.user(w.choreAsk())
	for i := 8 + r.IntN(3); i > 0; i-- {
		w.assistant(w.filler(5+r.IntN(3), t.Mention))
		if r.IntN(3) == 0 {
			w.tool("Bash", "command", w.proj.Test, w.pick(w.v.shellOutputs))
		}
	}
	return w.session(g.sessionID("passing", t.ID))
}

// noiseSession holds the topic's text only where the indexer must not
// look: a system reminder, a file read by a tool, shell output pasted by
// the user's ! command. What the user and assistant say is about a chore.
func (g *generator) noiseSession(t Topic, r *rand.Rand) Session {
	w := g.newWriter(r, t.Project, g.daysAgo(r, 1, 200))
	w.user("<system-reminder>\nNotes saved from an earlier session:\n" + t.Answer[0] + "\n</system-reminder>\n" + w.choreAsk())
	w.assistant(w.pick(w.v.chatter))
	w.tool("Read", "file_path", t.Project+"/docs/NOTES.md", t.Ask+"\n"+strings.Join(t.Answer, "\n")+"\n"+t.Code)
	w.user("<bash-input>cat docs/NOTES.md</bash-input>")
	w.user("<bash-stdout>" + t.Close + "</bash-stdout><bash-stderr></bash-stderr>")
	w.assistant(w.filler(3, ""))
	w.tool("Bash", "command", w.proj.Test, w.pick(w.v.shellOutputs))
	w.assistant(w.filler(2, ""))
	return w.session(g.sessionID("noise", t.ID))
}

// staleSession is a first attempt at the topic that was parked: the same
// question and the first reply without its code, then other work. The
// target, later and complete, is the better answer.
func (g *generator) staleSession(t Topic, start time.Time, r *rand.Rand) Session {
	w := g.newWriter(r, t.Project, start)
	w.user(t.Ask)
	w.assistant(t.Answer[0])
	w.user("Let's park this for now and come back to it after the release.")
	for n := 1 + r.IntN(2); n > 0; n-- {
		w.chore(noMention)
	}
	return w.session(g.sessionID("stale", t.ID))
}

// echoSession runs recall for the topic in another project and quotes
// what it found a minute later: the recall cutoff must drop the quote.
func (g *generator) echoSession(t Topic, r *rand.Rand) Session {
	w := g.newWriter(r, g.otherProject(r, t.Project), g.daysAgo(r, 1, 60))
	w.user(w.choreAsk())
	w.assistant(w.filler(2, ""))
	w.assistant(recallLeadIn)
	words := strings.TrimPrefix(t.Mention, "the ")
	w.tool("Bash", "command", fmt.Sprintf("recall %q", words), recallOutput(t))
	w.assistant("Found it. In that session: " + t.Answer[0] + " " + t.Close)
	w.assistant("So for this change I will follow the same approach.")
	for n := 1 + r.IntN(2); n > 0; n-- {
		w.chore(noMention)
	}
	return w.session(g.sessionID("echo", t.ID))
}

// recallOutput is what `recall` prints for the topic, as a tool result.
func recallOutput(t Topic) string {
	return fmt.Sprintf("[1/1] 3f2a9c1 • %s | 3 matches | score 12.40\n  [user]  %s\n  [asst]  %s", t.Project, t.Ask, t.Answer[0])
}
