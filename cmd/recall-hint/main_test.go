package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recall-dev/recall/lineage/state"
	"github.com/recall-dev/recall/store/lockfile"
	"github.com/recall-dev/recall/store/terms"
)

// Sessions of the in-process tests: one that solved a problem, one that
// names a word of it in passing, an unrelated one.
const (
	solved  = "aaaaaaaa-1111-4111-8111-111111111111"
	running = "dddddddd-4444-4444-8444-444444444444"
	prompt  = "the stripe webhook signature verification fails behind nginx again"
)

// fixtureIndex writes an index directory holding one term segment and
// its view, as a completed `recall index` leaves them.
func fixtureIndex(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	b := terms.NewBuilder()
	for _, r := range []terms.Row{
		{TimeMs: 1, Type: terms.TypeUser, Gen: 1, Session: solved, Project: "/p", Text: []byte("The stripe webhook signature verification keeps failing behind the nginx proxy")},
		{TimeMs: 2, Type: terms.TypeAssistant, Gen: 1, Session: solved, Project: "/p", Text: []byte("Verify the stripe signature against the raw body and turn off nginx buffering.")},
		{TimeMs: 3, Type: terms.TypeUser, Gen: 2, Session: "passing", Project: "/p", Text: []byte("list the open pull requests; one touches the webhook handler")},
		{TimeMs: 4, Type: terms.TypeUser, Gen: 3, Session: "unrelated", Project: "/p", Text: []byte("set up the grafana dashboard for queue latency")},
	} {
		b.Add(&r)
		b.AddRawBytes(len(r.Text) + 200)
	}
	ref, err := b.WriteFile(dir, 1, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := terms.WriteView(dir, []terms.Ref{ref}, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

func payloadOf(event, session, transcript, prompt string) []byte {
	data, _ := json.Marshal(map[string]string{"session_id": session, "transcript_path": transcript, "cwd": "/p",
		"hook_event_name": event, "prompt": prompt})
	return data
}

// result is one in-process run: what it printed, whether it handed the
// prompt to recall, and the hook.log line it wrote.
type result struct {
	code           int
	stdout, stderr string
	delegated      []byte
	log            string
}

// writeLexicon writes the lexicon of dir's segments, as a run that
// sealed them would.
func writeLexicon(t *testing.T, dir string) {
	refs, err := terms.Refs(dir)
	if err != nil {
		t.Fatal(err)
	}
	var segs []*terms.Segment
	for _, r := range refs {
		s, err := terms.Open(dir, r)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		segs = append(segs, s)
	}
	if err := terms.WriteLexicon(dir, segs); err != nil {
		t.Fatal(err)
	}
}

func runIn(t *testing.T, dir string, payload []byte, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	var r result
	r.code = run(invocation{
		args: append([]string{"--index-dir", dir}, args...), stdin: bytes.NewReader(payload), stdinTimeout: time.Minute, stdout: &out, stderr: &errOut,
		recall: func() string { return "/nonexistent/recall" }, now: func() time.Time { return time.Unix(0, 0) },
		delegate: func(_ invocation, data []byte) error { r.delegated = data; return nil },
	})
	r.stdout, r.stderr = out.String(), errOut.String()
	log, _ := os.ReadFile(filepath.Join(dir, "hook.log"))
	r.log = string(log)
	return r
}

func TestRecallHint(t *testing.T) {
	transcriptDir := t.TempDir()
	written := filepath.Join(transcriptDir, running+".jsonl")
	if err := os.WriteFile(written, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	notYet := filepath.Join(transcriptDir, "not-yet.jsonl")
	for _, tc := range []struct {
		name    string
		payload []byte
		prepare func(t *testing.T, dir string)
		hand    bool   // handed to recall hook
		logs    string // in hook.log when not handed
	}{
		{"a hint that cleared the bar goes to recall for its quotes", payloadOf("UserPromptSubmit", running, notYet, prompt), nil, true, ""},
		{"silence ends here", payloadOf("UserPromptSubmit", running, notYet, "add a dark mode toggle to the settings page"), nil, false, "no hint: silent"},
		{"a slash command", payloadOf("UserPromptSubmit", running, notYet, "/compact "+prompt), nil, false, "not searched: slash command"},
		{"another event", payloadOf("SessionStart", running, notYet, ""), nil, true, ""},
		{"a payload that does not decode", []byte("{not json"), nil, true, ""},
		{"no transcript named", payloadOf("UserPromptSubmit", running, "", prompt), nil, true, ""},
		{"a running session whose lineage was never read", payloadOf("UserPromptSubmit", running, written, prompt), nil, true, ""},
		{"its lineage as read: the parent is left out", payloadOf("UserPromptSubmit", running, written, prompt), func(t *testing.T, dir string) {
			state.Save(dir, &state.State{Path: written, Session: running, Sessions: []string{solved}})
		}, false, "no hint: silent"},
		{"with the lexicon, a hint that cleared the bar goes to recall", payloadOf("UserPromptSubmit", running, notYet, prompt), writeLexicon, true, ""},
		{"with the lexicon, silence ends here", payloadOf("UserPromptSubmit", running, notYet, "add a dark mode toggle to the settings page"), writeLexicon, false, "no hint: silent"},
		{"a damaged lexicon is said and passed by", payloadOf("UserPromptSubmit", running, notYet, "add a dark mode toggle to the settings page"), func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, terms.LexiconFileName), []byte("RCLLEXIC damaged"), 0o600)
		}, false, "no usable term lexicon"},
		{"a segment the lexicon covers that is gone", payloadOf("UserPromptSubmit", running, notYet, "add a dark mode toggle"), func(t *testing.T, dir string) {
			writeLexicon(t, dir)
			refs, _ := terms.Refs(dir)
			os.Remove(refs[0].Path(dir))
		}, true, ""},
		{"no view of the index", payloadOf("UserPromptSubmit", running, notYet, "add a dark mode toggle"), func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, terms.ViewFileName))
		}, true, ""},
		{"a view naming a segment that is gone", payloadOf("UserPromptSubmit", running, notYet, "add a dark mode toggle"), func(t *testing.T, dir string) {
			refs, _ := terms.Refs(dir)
			os.Remove(refs[0].Path(dir))
		}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fixtureIndex(t)
			if tc.prepare != nil {
				tc.prepare(t, dir)
			}
			r := runIn(t, dir, tc.payload)
			if r.code != 0 || r.stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q: want 0 and nothing (recall prints the hint)", r.code, r.stdout, r.stderr)
			}
			if tc.hand {
				if !bytes.Equal(r.delegated, tc.payload) {
					t.Fatalf("handed %q to recall hook, want the payload (log %q)", r.delegated, r.log)
				}
				return
			}
			if r.delegated != nil {
				t.Fatalf("handed the prompt to recall hook; want it answered here")
			}
			if !strings.Contains(r.log, tc.logs) || !strings.Contains(r.log, "(recall-hint)") || strings.Count(r.log, "\n") != 1 {
				t.Fatalf("hook.log %q, want one line saying %q", r.log, tc.logs)
			}
		})
	}
}

// A stdin that never ends is given up on: nothing printed, nothing
// handed on, the hook exits 0 and says why.
func TestRecallHintSilentPipe(t *testing.T) {
	dir := fixtureIndex(t)
	stdin, writer := io.Pipe()
	defer writer.Close()
	go writer.Write([]byte(`{"hook_event_name":"UserPromptSubmit"`)) // and never closed
	var out bytes.Buffer
	handed := false
	code := run(invocation{args: []string{"--index-dir", dir}, stdin: stdin, stdinTimeout: 50 * time.Millisecond, stdout: &out, stderr: io.Discard,
		now: time.Now, delegate: func(invocation, []byte) error { handed = true; return nil }})
	log, _ := os.ReadFile(filepath.Join(dir, "hook.log"))
	if code != 0 || out.Len() != 0 || handed || !strings.Contains(string(log), "no complete payload") {
		t.Fatalf("exit %d, stdout %q, handed on %v, log %q", code, out.String(), handed, log)
	}
}

func TestIndexDirOf(t *testing.T) {
	t.Setenv("RECALL_INDEX_DIR", "/from/env")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "/from/env"},
		{[]string{"--index-dir", "/a"}, "/a"},
		{[]string{"--source", "/s", "--index-dir=/b"}, "/b"},
		{[]string{"--index-dir"}, "/from/env"},
	} {
		if got := indexDirOf(tc.args); got != tc.want {
			t.Errorf("indexDirOf(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// The built binaries together: recall indexes a transcript, recall-hint
// answers a prompt no session holds by itself and hands one a session
// answers to recall, whose hint it prints.
func TestRecallHintBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds recall")
	}
	bin := t.TempDir()
	for _, pkg := range []string{".", "../recall"} {
		cmd := exec.Command("go", "build", "-o", bin, pkg)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	root := t.TempDir()
	src, idx := filepath.Join(root, "projects"), filepath.Join(root, "index")
	project := filepath.Join(src, "-p")
	if err := os.MkdirAll(project, 0o700); err != nil {
		t.Fatal(err)
	}
	var transcript strings.Builder
	for i, line := range []struct{ role, text string }{
		{"user", "The stripe webhook signature verification keeps failing behind the nginx proxy"},
		{"assistant", "Verify the stripe signature against the raw body before parsing, and turn off nginx buffering for that route."},
	} {
		rec := map[string]any{"type": line.role, "uuid": "u-" + string(rune('a'+i)), "sessionId": solved, "cwd": "/p", "timestamp": "2026-03-01T10:00:00.000Z",
			"message": map[string]any{"role": line.role, "content": line.text}}
		data, _ := json.Marshal(rec)
		transcript.Write(append(data, '\n'))
	}
	if err := os.WriteFile(filepath.Join(project, solved+".jsonl"), []byte(transcript.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	// The prompt recall-hint hands to recall hook starts a detached index
	// update: the directory goes once it is done (cleanups run last
	// first, so this one before TempDir's).
	t.Cleanup(func() { awaitIndexer(t, idx) })
	env := append(os.Environ(), "HOME="+root, "CLAUDE_CODE_SESSION_ID=", "CLAUDE_SESSION_ID=")
	index := exec.Command(filepath.Join(bin, "recall"), "index", "--source", src, "--index-dir", idx)
	index.Env = env
	if out, err := index.CombinedOutput(); err != nil {
		t.Fatalf("recall index: %v\n%s", err, out)
	}
	hintRun := func(p string) string {
		cmd := exec.Command(filepath.Join(bin, "recall-hint"), "--source", src, "--index-dir", idx)
		cmd.Env = env
		cmd.Stdin = bytes.NewReader(payloadOf("UserPromptSubmit", running, filepath.Join(project, running+".jsonl"), p))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("recall-hint: %v", err)
		}
		return string(out)
	}
	if out := hintRun("add a dark mode toggle to the settings page"); out != "" {
		t.Fatalf("a prompt no session answers printed %q", out)
	}
	out := hintRun(prompt)
	if !strings.Contains(out, "<recall-hint>") || !strings.Contains(out, solved) {
		t.Fatalf("a prompt a session answers printed %q", out)
	}
	log, _ := os.ReadFile(filepath.Join(idx, "hook.log"))
	if !strings.Contains(string(log), "(recall-hint)") || !strings.Contains(string(log), "hint shown") {
		t.Fatalf("hook.log does not say who answered:\n%s", log)
	}
}

// awaitIndexer waits until no indexer has held the index lock for a
// while, at most a minute.
func awaitIndexer(t *testing.T, idx string) {
	lock := filepath.Join(idx, lockfile.WriterName)
	deadline, free := time.Now().Add(time.Minute), time.Now()
	for time.Since(free) < 300*time.Millisecond && time.Now().Before(deadline) {
		if held, err := lockfile.Held(lock); err != nil || held {
			free = time.Now()
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// FuzzDecodePayload: the payload is read as encoding/json reads it into
// a map, for the members Claude Code names: the same strings, and an
// error where encoding/json gives one or one of them is not a string.
func FuzzDecodePayload(f *testing.F) {
	f.Add(payloadOf("UserPromptSubmit", running, "/p/x.jsonl", "fix the \"flaky\" test\n\u00e9"))
	f.Add([]byte(`{"prompt":null,"session_id":"a","session_id":"b","x":[1,{"y":2}]}`))
	f.Add([]byte(`{"prompt":3}`))
	f.Add([]byte(`["prompt"]`))
	f.Add([]byte(`{"pro\u006dpt":"\ud800x"} `))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodePayload(data)
		var ref map[string]any
		refErr := json.Unmarshal(data, &ref)
		want := payload{}
		for key, field := range map[string]*string{"session_id": &want.SessionID, "transcript_path": &want.TranscriptPath,
			"hook_event_name": &want.HookEventName, "prompt": &want.Prompt} {
			switch v := ref[key].(type) {
			case string:
				*field = v
			case nil:
			default:
				refErr = fmt.Errorf("%s is a %T", key, v)
			}
		}
		if (err != nil) != (refErr != nil) || err == nil && got != want {
			t.Fatalf("decodePayload(%q) = %+v, %v; encoding/json: %+v, %v", data, got, err, want, refErr)
		}
	})
}

// stdin as Claude Code gives it, a pipe, is read by poll: in pieces to
// its end, and given up on when it stays open and silent.
func TestReadPolled(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	want := payloadOf("UserPromptSubmit", running, "/p/x.jsonl", strings.Repeat("a long prompt ", 3000))
	go func() {
		for rest := want; len(rest) > 0; {
			n := min(len(rest), 7000)
			w.Write(rest[:n])
			rest = rest[n:]
			time.Sleep(time.Millisecond)
		}
		w.Close()
	}()
	got, err := readPayload(r, time.Minute)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, %v; want the %d written", len(got), err, len(want))
	}
	r.Close()

	r, w, err = os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	w.Write([]byte(`{"hook_event_name":`)) // and never closed
	if got, err := readPayload(r, 50*time.Millisecond); err == nil || !strings.Contains(err.Error(), "no complete payload") {
		t.Fatalf("an open, silent pipe read as %q, %v", got, err)
	}
}
