package codex

import (
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

// TestIdentityForkCopies: a fork writes its parent's history anew, each
// line stamped with the fork's time; the messages it copied keep the
// parent's keys (and are dropped as copies), its own have new ones.
func TestIdentityForkCopies(t *testing.T) {
	parent := read(t, fixturePath(t, threadPlain), record.FileState{})
	fork := read(t, fixturePath(t, threadFork), record.FileState{})
	parentKeys := keys(parent.Rows)
	var copied, own int
	for _, r := range fork.Rows {
		isCopy := slices.Contains(parentKeys, r.Key)
		if r.Timestamp >= "2026-03-15T10:01" { // the fork's own turn
			own++
			if isCopy {
				t.Errorf("the fork's own row %q has a key of its parent's", r.Text)
			}
			continue
		}
		copied++
		if !isCopy {
			t.Errorf("copied row %q (line %d) has no key of its parent's", r.Text, r.Line)
		}
	}
	if copied != 3 || own != 2 {
		t.Fatalf("%d copied rows, %d own, want 3 and 2", copied, own)
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
