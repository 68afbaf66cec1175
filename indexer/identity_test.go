package indexer

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recall-dev/recall/transcript"
)

// identityCorpus writes transcripts whose messages share uuids in every
// way the wild and a hostile tree do, and returns what each message
// should be indexed as: session → the texts it owns.
//
//   - an original session and an old-style resumed copy of it, under a
//     file name that sorts first, whose copied records keep the
//     original's sessionId (a resume of 1.0.x copied the history);
//   - a fork whose copies carry forkedFrom (2.1.123), sorting first too;
//   - a fork whose copies say nothing of their origin (2.1.330's
//     --fork-session), sorting first, created after its parent;
//   - a session whose message reuses another session's uuid with other
//     text (a collision, not a copy);
//   - a reply of 1,000 content blocks.
func identityCorpus(t *testing.T) (string, map[string][]string) {
	t.Helper()
	src := t.TempDir()
	dir := filepath.Join(src, "-home-dev-api")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const (
		orig   = "e0000002-0000-4000-8000-000000000002"
		resume = "e0000001-0000-4000-8000-000000000001" // sorts before orig
		fork   = "e0000000-0000-4000-8000-000000000000" // sorts before both
		other  = "e0000003-0000-4000-8000-000000000003"
		silent = "d0000000-0000-4000-8000-000000000000" // sorts before all
		wide   = "e0000004-0000-4000-8000-000000000004"
	)
	rec := func(session, typ, uuid, text string, extra map[string]any) string {
		r := map[string]any{"type": typ, "sessionId": session, "uuid": uuid, "cwd": "/home/dev/api",
			"timestamp": "2026-05-01T10:00:00.000Z", "entrypoint": "cli"}
		if typ == "user" {
			r["message"] = map[string]any{"role": "user", "content": text}
		} else {
			r["message"] = map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}}}
		}
		for k, v := range extra {
			r[k] = v
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	write := func(session string, lines ...string) {
		if err := os.WriteFile(filepath.Join(dir, session+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string][]string{}
	own := func(session, text string) string { want[session] = append(want[session], text); return text }

	var origLines, resumeLines, forkLines, silentLines []string
	for i := range 4 {
		typ := []string{"user", "assistant"}[i%2]
		uuid := fmt.Sprintf("e2000000-0000-4000-8000-00000000000%d", i)
		text := own(orig, fmt.Sprintf("original message %d about the rate limiter redis script", i))
		origLines = append(origLines, rec(orig, typ, uuid, text, nil))
		resumeLines = append(resumeLines, rec(orig, typ, uuid, text, nil)) // copied with its sessionId
		forkLines = append(forkLines, rec(fork, typ, uuid, text, map[string]any{"forkedFrom": map[string]any{"sessionId": orig, "messageUuid": uuid}}))
		silentLines = append(silentLines, rec(silent, typ, uuid, text, nil))
	}
	resumeLines = append(resumeLines, rec(resume, "user", "e2000001-0000-4000-8000-000000000010", own(resume, "resumed: now add metrics to the limiter"), nil))
	forkLines = append(forkLines, rec(fork, "user", "e2000000-0000-4000-8000-000000000020", own(fork, "forked: try a leaky bucket instead"), nil))
	write(orig, origLines...)
	write(resume, resumeLines...)
	write(fork, forkLines...)
	silentLines = append(silentLines, rec(silent, "user", "e2000000-0000-4000-8000-000000000030", own(silent, "silent fork: cache the limiter state"), nil))
	time.Sleep(30 * time.Millisecond) // a later creation time than its parent's (file times are coarse)
	write(silent, silentLines...)     // created after its parent: the parent is read first

	// The same uuid as the original's first message, other words.
	write(other, rec(other, "user", "e2000000-0000-4000-8000-000000000000", own(other, "an unrelated question about invoices that reuses a uuid"), nil))

	blocks := make([]any, 1000)
	for i := range blocks {
		blocks[i] = map[string]any{"type": "text", "text": own(wide, fmt.Sprintf("block number %04d of a very wide reply", i))}
	}
	b, err := json.Marshal(map[string]any{"type": "assistant", "sessionId": wide, "uuid": "e2000004-0000-4000-8000-000000000001",
		"cwd": "/home/dev/api", "timestamp": "2026-05-01T10:00:00.000Z", "message": map[string]any{"role": "assistant", "content": blocks}})
	if err != nil {
		t.Fatal(err)
	}
	write(wide, string(b))
	return src, want
}

// TestEveryMessageOnceInItsOwnSession: each message of the corpus is
// indexed exactly once, in the session that wrote it, whatever sorts
// first; and forgetting a copy leaves its original whole. (A fork whose
// copies say nothing of their origin is told by its creation time: where
// the file system keeps none, the test skips that part.)
func TestEveryMessageOnceInItsOwnSession(t *testing.T) {
	src, want := identityCorpus(t)
	if transcript.BirthNs(filepath.Join(src, "-home-dev-api", "e0000002-0000-4000-8000-000000000002.jsonl")) == 0 {
		t.Skip("the file system keeps no creation times")
	}
	idx := t.TempDir()
	runIndex(t, src, idx, "")
	got := map[string]map[string]int{}
	for _, r := range liveRows(t, idx) {
		if got[r.Session] == nil {
			got[r.Session] = map[string]int{}
		}
		got[r.Session][r.Text]++
	}
	total := 0
	for session, texts := range want {
		for _, text := range texts {
			total++
			if n := got[session][text]; n != 1 {
				t.Errorf("%s: %q indexed %d times, want once", session[:8], text, n)
			}
			delete(got[session], text)
		}
	}
	for session, texts := range got {
		for text, n := range texts {
			t.Errorf("%s: %q indexed %d times, and it is not that session's", session[:8], text, n)
		}
	}
	if t.Failed() {
		return
	}
	for _, copySession := range []string{"e0000000-0000-4000-8000-000000000000", "e0000001-0000-4000-8000-000000000001", "d0000000-0000-4000-8000-000000000000"} {
		if _, err := Forget(Options{Config: Config{Sources: []string{src}, IndexDir: idx}}, ForgetSelector{Session: copySession}, false); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, r := range liveRows(t, idx) {
		if r.Session == "e0000002-0000-4000-8000-000000000002" {
			n++
		}
	}
	if n != len(want["e0000002-0000-4000-8000-000000000002"]) || total != 1008 {
		t.Errorf("after forgetting the copies the original has %d of its %d messages (corpus %d)", n, len(want["e0000002-0000-4000-8000-000000000002"]), total)
	}
}

// TestResumeCopyCreatedBeforeItsOrigin: an old-style resume copies its
// origin's history, the first prompts keeping the origin's sessionId and
// the replies taking its own (real files of 2.1.19). Copied, restored or
// checked out, the copy may be created before its origin, and a commit
// may fall between the two: every message is still its origin's, each
// indexed once, whatever the order and the commits.
func TestResumeCopyCreatedBeforeItsOrigin(t *testing.T) {
	const (
		orig   = "f0000002-0000-4000-8000-000000000002"
		resume = "f0000001-0000-4000-8000-000000000001"
	)
	for _, checkpoint := range []int64{0, 1} {
		t.Run(fmt.Sprintf("checkpoint %d", checkpoint), func(t *testing.T) {
			src := t.TempDir()
			dir := filepath.Join(src, "-home-dev-api")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			line := func(session, typ, uuid, text string) string {
				r := map[string]any{"type": typ, "sessionId": session, "uuid": uuid, "cwd": "/home/dev/api",
					"timestamp": "2026-05-01T10:00:00.000Z", "entrypoint": "cli",
					"message": map[string]any{"role": "user", "content": text}}
				if typ == "assistant" {
					r["message"] = map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}}}
				}
				b, err := json.Marshal(r)
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			var origLines, resumeLines []string
			want := map[string]string{}
			for i := range 6 {
				typ := []string{"user", "assistant"}[i%2]
				uuid := fmt.Sprintf("f2000000-0000-4000-8000-00000000000%d", i)
				text := fmt.Sprintf("original message %d about the invoice exporter", i)
				want[text] = orig
				origLines = append(origLines, line(orig, typ, uuid, text))
				copySession := resume // the copied replies carry the resume's id
				if typ == "user" && i < 4 {
					copySession = orig
				}
				resumeLines = append(resumeLines, line(copySession, typ, uuid, text))
			}
			resumeLines = append(resumeLines, line(resume, "user", "f2000001-0000-4000-8000-000000000010", "resumed: now export the invoices as CSV"))
			want["resumed: now export the invoices as CSV"] = resume
			write := func(name string, lines []string) {
				if err := os.WriteFile(filepath.Join(dir, name+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(resume, resumeLines)
			time.Sleep(20 * time.Millisecond) // creation times: the copy first, its origin last
			// More transcripts between the two than the readers hold
			// ahead, so that the origin is read out of turn by the
			// committer itself, and commits fall between the two when
			// checkpoints are small.
			for i := range maxAheadFiles + 6 {
				s := fmt.Sprintf("f5%06d-0000-4000-8000-0000000000aa", i)
				text := fmt.Sprintf("filler session %d asks about the scheduler", i)
				want[text] = s
				write(s, []string{line(s, "user", fmt.Sprintf("f3%06d-0000-4000-8000-000000000000", i), text)})
			}
			time.Sleep(20 * time.Millisecond)
			write(orig, origLines)

			idx := t.TempDir()
			runIndexOpts(t, src, idx, checkpoint)
			got := map[string][]string{}
			for _, r := range liveRows(t, idx) {
				got[r.Text] = append(got[r.Text], r.Session)
			}
			for text, session := range want {
				if g := got[text]; len(g) != 1 || g[0] != session {
					t.Errorf("%q indexed in %v, want once in %s", text, g, session[:8])
				}
			}
			if len(got) != len(want) {
				t.Errorf("indexed %d texts, want %d", len(got), len(want))
			}
		})
	}
}

// TestRepeatedTitlesKeptOnce: Claude Code writes a session's titles again
// at every turn; each title is kept once, across reads too, and a new
// title is kept beside the old.
func TestRepeatedTitlesKeptOnce(t *testing.T) {
	const session = "f1000000-0000-4000-8000-000000000001"
	src := t.TempDir()
	dir := filepath.Join(src, "-home-dev-api")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, session+".jsonl")
	turn := func(i int, title string) string {
		return fmt.Sprintf(`{"type":"user","sessionId":"%s","uuid":"f1100000-0000-4000-8000-00000000000%d","cwd":"/home/dev/api","timestamp":"2026-05-01T10:00:0%dZ","message":{"role":"user","content":"question number %d about the exporter"}}`, session, i, i, i) + "\n" +
			fmt.Sprintf(`{"type":"ai-title","sessionId":"%s","aiTitle":"%s"}`, session, title) + "\n" +
			fmt.Sprintf(`{"type":"custom-title","sessionId":"%s","customTitle":"exporter work"}`, session) + "\n"
	}
	var b strings.Builder
	for i := range 3 {
		b.WriteString(turn(i, "Fix the CSV exporter"))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	idx := t.TempDir()
	runIndex(t, src, idx, "")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(turn(3, "Fix the CSV exporter") + turn(4, "Fix the CSV and XLSX exporters")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	runIndex(t, src, idx, "")
	titles := map[string]int{}
	for _, r := range liveRows(t, idx) {
		if r.Type == "title" {
			titles[r.Role+": "+r.Text]++
		}
	}
	want := map[string]int{"ai-title: Fix the CSV exporter": 1, "custom-title: exporter work": 1, "ai-title: Fix the CSV and XLSX exporters": 1}
	if !maps.Equal(titles, want) {
		t.Errorf("title rows %v, want %v", titles, want)
	}
}
