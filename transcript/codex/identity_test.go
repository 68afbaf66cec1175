package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// keys are the rows' keys, in order.
func keys(rows []transcript.Extracted) []uint64 {
	out := make([]uint64, len(rows))
	for i, r := range rows {
		if r.Key == 0 || r.UUID == "" {
			panic("a row without an identity: " + r.Text)
		}
		out[i] = r.Key
	}
	return out
}

// TestIdentityMovedAndCompressed: a rollout read from sessions/, moved to
// archived_sessions/, and compressed there by Codex (here at test time)
// gives its rows the same keys each time.
func TestIdentityMovedAndCompressed(t *testing.T) {
	for _, thread := range []string{threadPlain, threadSubagent, threadEvents, threadLegacy} {
		src := fixturePath(t, thread)
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		home := t.TempDir()
		name := filepath.Base(src)
		live := filepath.Join(home, sessionsDir, "2026", "03", "14", name)
		archived := filepath.Join(home, archivedDir, name)
		compressed := filepath.Join(t.TempDir(), archivedDir, name+".zst")
		writeFile(t, live, data)
		writeFile(t, archived, data)
		writeFile(t, compressed, compress(t, data))

		want := read(t, live, record.FileState{})
		if len(want.Rows) == 0 {
			t.Fatalf("%s: no rows", name)
		}
		for _, path := range []string{archived, compressed} {
			got := read(t, path, record.FileState{})
			if !slices.Equal(keys(got.Rows), keys(want.Rows)) || !slices.Equal(rowKeys(got.Rows), rowKeys(want.Rows)) {
				t.Errorf("%s: keys differ from the live file's:\n got %q\nwant %q", path, rowKeys(got.Rows), rowKeys(want.Rows))
			}
			if got.Session != want.Session || got.Project != want.Project {
				t.Errorf("%s: where %q %q, want %q %q", path, got.Session, got.Project, want.Session, want.Project)
			}
		}
	}
}

// compress is data as Codex compresses an archived rollout: zstd.
func compress(t *testing.T, data []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(data, nil)
}

// lineUUIDs are the UUIDs a read of path gives its messages and tool
// calls by line, rows made or not (a copy is dropped in the reader).
func lineUUIDs(t *testing.T, path string) map[int]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := newParser(transcript.Work{T: transcript.Transcript{Path: path}}).(*parser)
	p.ready = true
	out := map[int]string{}
	p.keyed = func(n int, uuid string) { out[n] = uuid }
	for i, line := range bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n")) {
		_ = p.line(line, i+1)
	}
	return out
}

// TestIdentityForkCopies: a fork writes its parent's history anew, each
// line stamped with the fork's time; the messages it copied (after the
// parent's session_meta, until its own task_started) keep the parent's
// keys and are dropped as copies; its own have new ones.
func TestIdentityForkCopies(t *testing.T) {
	parentPath, forkPath := fixturePath(t, threadPlain), fixturePath(t, threadFork)
	parentUUIDs := map[string]bool{}
	for _, u := range lineUUIDs(t, parentPath) {
		parentUUIDs[u] = true
	}
	forkUUIDs := lineUUIDs(t, forkPath)
	// lines 4-16 are the copy (AGENTS.md, environment, prompt, tool call,
	// reply), 19 and 21 the fork's own prompt and reply
	for _, n := range []int{4, 5, 8, 12, 15} {
		if u, ok := forkUUIDs[n]; !ok || !parentUUIDs[u] {
			t.Errorf("copied line %d: UUID %q is none of its parent's", n, u)
		}
	}
	for _, n := range []int{19, 21} {
		if u, ok := forkUUIDs[n]; !ok || parentUUIDs[u] {
			t.Errorf("the fork's own line %d: UUID %q (a parent's: %v)", n, u, parentUUIDs[u])
		}
	}
	fork := read(t, forkPath, record.FileState{})
	for _, r := range fork.Rows {
		if r.Line < 19 {
			t.Errorf("copied row %q (line %d) kept", r.Text, r.Line)
		}
	}
	if len(fork.Rows) != 2 {
		t.Fatalf("%d rows, want the fork's own 2", len(fork.Rows))
	}
}

// TestIdentitySamePromptTwoSessions: the same first prompt in two
// sessions (no item ids) is two messages: both sessions keep it, with
// different UUIDs.
func TestIdentitySamePromptTwoSessions(t *testing.T) {
	const a, b = "019c3729-0000-7000-8000-00000000000a", "019c372f-0000-7000-8000-00000000000b"
	dir := t.TempDir()
	var uuids []string
	for _, id := range []string{a, b} {
		path := filepath.Join(dir, "rollout-2026-02-08T10-00-00-"+id+".jsonl")
		writeFile(t, path, []byte(`{"timestamp":"2026-02-08T10:00:00.000Z","type":"session_meta","payload":{"id":"`+id+`","cwd":"/a","source":"cli","originator":"codex_cli_rs"}}`+"\n"+
			`{"timestamp":"2026-02-08T10:00:01.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"`+id[:9]+`1111-7000-8000-000000000001"}}`+"\n"+
			itemLine("message", `"role":"user","content":[{"type":"input_text","text":"What model are you?"}]`)+"\n"+
			`{"timestamp":"2026-02-08T10:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"What model are you?","images":[]}}`+"\n"))
		res := read(t, path, record.FileState{})
		if len(res.Rows) != 1 || res.Rows[0].Text != "What model are you?" {
			t.Fatalf("%s: rows %+v", id, res.Rows)
		}
		uuids = append(uuids, res.Rows[0].UUID)
	}
	if uuids[0] == uuids[1] {
		t.Fatalf("both sessions' prompt has UUID %s", uuids[0])
	}
}

// TestIdentityRepeats: the same message typed twice in a thread is two
// messages, whether read from message items or (older rollouts) events.
func TestIdentityRepeats(t *testing.T) {
	for _, c := range []struct{ thread, text string }{
		{threadPlain, "Please run the full test suite again and tell me what fails"},
		{threadEvents, "Please rebuild the site and check the generated output"},
	} {
		res := read(t, fixturePath(t, c.thread), record.FileState{})
		var found []transcript.Extracted
		for _, r := range res.Rows {
			if r.Text == c.text {
				found = append(found, r)
			}
		}
		if len(found) != 2 || found[0].Key == found[1].Key || found[0].UUID == found[1].UUID {
			t.Errorf("%s: %q twice should be two messages: %q", c.thread, c.text, rowKeys(found))
		}
	}
}

// TestIdentityFromItemIDs: a response item's own id is its identity: the
// same text under two ids is two messages, and one id is one message in
// whichever file and line it is read.
func TestIdentityFromItemIDs(t *testing.T) {
	msg := func(id, text string) string {
		return itemLine("message", `"id":"`+id+`","role":"user","content":[{"type":"input_text","text":"`+text+`"}]`)
	}
	dir := t.TempDir()
	a := filepath.Join(dir, "rollout-2026-01-01T00-00-00-"+threadPlain+".jsonl")
	b := filepath.Join(dir, "rollout-2026-01-02T00-00-00-"+threadFork+".jsonl")
	writeFile(t, a, []byte(metaLine(threadPlain, "/a", "cli")+"\n"+msg("msg_1", "Deploy the staging stack now")+"\n"+msg("msg_2", "Deploy the staging stack now")+"\n"))
	writeFile(t, b, []byte(metaLine(threadFork, "/a", "cli")+"\n"+msg("msg_0", "Something else entirely here")+"\n"+msg("msg_2", "Deploy the staging stack now")+"\n"))
	ra, rb := read(t, a, record.FileState{}), read(t, b, record.FileState{})
	if len(ra.Rows) != 2 || len(rb.Rows) != 2 {
		t.Fatalf("%d and %d rows", len(ra.Rows), len(rb.Rows))
	}
	if ra.Rows[0].Key == ra.Rows[1].Key {
		t.Error("two ids, one key")
	}
	if ra.Rows[1].Key != rb.Rows[1].Key {
		t.Error("one id, two keys")
	}
}

// TestIdentityEventBeforeItem: when a file's first prompt comes as an
// event before any message item (an order no version is known to write),
// both forms make a row, and both have one key: the committer keeps one.
func TestIdentityEventBeforeItem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rollout-2026-01-01T00-00-00-"+threadPlain+".jsonl")
	writeFile(t, path, []byte(metaLine(threadPlain, "/a", "cli")+"\n"+
		eventLine("user_message", `"message":"Bump the Go version to 1.26"`)+"\n"+
		itemLine("message", `"role":"user","content":[{"type":"input_text","text":"Bump the Go version to 1.26"}]`)+"\n"))
	res := read(t, path, record.FileState{})
	if len(res.Rows) != 2 || res.Rows[0].Key != res.Rows[1].Key {
		t.Fatalf("rows %q", rowKeys(res.Rows))
	}
}
