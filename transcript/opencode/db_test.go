package opencode

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// addTurn writes a prompt and a reply into session at t (ms), as
// OpenCode does, and touches the session.
func addTurn(t *testing.T, db *sql.DB, session, id string, at int64, prompt, reply string) {
	t.Helper()
	execSQL(t, db, `INSERT INTO message VALUES (?, ?, ?, ?, ?)`, "msg_"+id+"u", session, at, at,
		fmt.Sprintf(`{"role":"user","time":{"created":%d}}`, at))
	execSQL(t, db, `INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)`, "prt_"+id+"u", "msg_"+id+"u", session, at, at,
		fmt.Sprintf(`{"type":"text","text":%q,"time":{"start":%d}}`, prompt, at))
	execSQL(t, db, `INSERT INTO message VALUES (?, ?, ?, ?, ?)`, "msg_"+id+"a", session, at+100, at+900,
		fmt.Sprintf(`{"role":"assistant","time":{"created":%d,"completed":%d},"path":{"cwd":"/home/dev/api"}}`, at+100, at+900))
	execSQL(t, db, `INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)`, "prt_"+id+"a", "msg_"+id+"a", session, at+200, at+800,
		fmt.Sprintf(`{"type":"text","text":%q,"time":{"start":%d}}`, reply, at+200))
	execSQL(t, db, `UPDATE session SET time_updated = ? WHERE id = ?`, at+900, session)
}

// TestIncremental: a database read, written to (a new turn in one
// session, the end of the turn another was writing), and read again from
// the cursor the first read returned gives exactly the new rows (after
// the copies the committer leaves out), of those two sessions alone; a
// third read with nothing new gives nothing new.
func TestIncremental(t *testing.T) {
	root := fixtureRoot(t)
	path := filepath.Join(root, "opencode.db")
	first := read(t, testFormat(), dbTranscriptOf(t, path), record.FileState{})
	if first.Offset <= 0 {
		t.Fatalf("cursor %d after a first read", first.Offset)
	}

	db := openRW(t, path)
	at := int64(fixtureT + 200_000)
	addTurn(t, db, "ses_gamma", "g05", at, "Now add tests for the TOML loader, table driven", "Added five table-driven tests for the TOML loader.")
	// ses_beta's turn ends: its message completed, its text whole, its call done.
	execSQL(t, db, `UPDATE message SET time_updated = ?, data = json_set(data, '$.time.completed', ?) WHERE id = 'msg_e02'`, at+500, at+500)
	execSQL(t, db, `UPDATE part SET time_updated = ?, data = json_set(data, '$.text', ?) WHERE id = 'prt_e02_1'`, at+400,
		"WAL mode lets readers keep reading while a writer appends to the log.")
	execSQL(t, db, `UPDATE part SET time_updated = ?, data = json_set(data, '$.state.status', 'completed', '$.state.output', 'wal.md') WHERE id = 'prt_e02_2'`, at+450)
	execSQL(t, db, `UPDATE session SET time_updated = ? WHERE id = 'ses_beta'`, at+500)
	db.Close()

	later := newFormat(clockAt(at + 300_000))
	second := read(t, later, dbTranscriptOf(t, path), stateAfter(first))
	got := texts(fresh(second.Rows, keySet(first.Rows)))
	want := []string{
		"user/user: Now add tests for the TOML loader, table driven",
		"assistant/assistant: Added five table-driven tests for the TOML loader.",
		"assistant/assistant: WAL mode lets readers keep reading while a writer appends to the log.",
		"tool/tool: bash: ls posts",
	}
	if !slices.Equal(got, want) {
		t.Errorf("new rows of the second read:\n%s\nwant:\n%s", joinLines(got), joinLines(want))
	}
	for _, r := range second.Rows {
		if r.Session != "ses_gamma" && r.Session != "ses_beta" {
			t.Errorf("the second read read again %s's row %q", r.Session, r.Text)
		}
		if (r.Session == "ses_gamma") != (r.Project == "/home/dev/api") || r.Agent != "opencode" {
			t.Errorf("row %+v", r.Row)
		}
	}
	if second.Offset <= first.Offset {
		t.Errorf("cursor %d after %d", second.Offset, first.Offset)
	}

	seen := keySet(first.Rows)
	for k := range keySet(second.Rows) {
		seen[k] = true
	}
	third := read(t, later, dbTranscriptOf(t, path), stateAfter(second))
	if got := fresh(third.Rows, seen); len(got) > 0 {
		t.Errorf("a read with nothing new gave new rows:\n%s", joinLines(texts(got)))
	}
	if third.Offset < second.Offset {
		t.Errorf("cursor went back from %d to %d", second.Offset, third.Offset)
	}
}

// TestPartChangedAlone: a part written after its message (a prompt's
// parts follow the prompt) is read once its session changes again.
func TestPartChangedAlone(t *testing.T) {
	root := fixtureRoot(t)
	path := filepath.Join(root, "opencode.db")
	first := read(t, testFormat(), dbTranscriptOf(t, path), record.FileState{})
	db := openRW(t, path)
	at := int64(fixtureT + 200_000)
	execSQL(t, db, `INSERT INTO part VALUES ('prt_g01_2', 'msg_g01', 'ses_gamma', ?, ?, '{"type":"text","text":"Also keep YAML working for one release."}')`, at, at)
	addTurn(t, db, "ses_gamma", "g05", at+1000, "Now add tests for the TOML loader, table driven", "Added five table-driven tests for the TOML loader.")
	db.Close()
	second := read(t, newFormat(clockAt(at+300_000)), dbTranscriptOf(t, path), stateAfter(first))
	got := texts(fresh(second.Rows, keySet(first.Rows)))
	if !slices.Contains(got, "user/user: Also keep YAML working for one release.") || len(got) != 3 {
		t.Errorf("new rows:\n%s", joinLines(got))
	}
}

// TestConcurrentWriter: a database another connection is writing in WAL
// mode (a write transaction open) is read: what is committed, from the
// log as well as the file, and not what is not yet.
func TestConcurrentWriter(t *testing.T) {
	root := fixtureRoot(t)
	path := filepath.Join(root, "opencode.db")
	writer := openRW(t, path)
	defer writer.Close()
	ctx := context.Background()
	// Committed, but only in the log: the writer stays open, so nothing
	// checkpoints it into the file.
	execSQL(t, writer, `PRAGMA wal_autocheckpoint = 0`)
	at := int64(fixtureT + 200_000)
	addTurn(t, writer, "ses_gamma", "g05", at, "A prompt that is only in the write-ahead log", "A reply that is only in the write-ahead log.")
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(file, []byte("only in the write-ahead log")) {
		t.Fatal("the new turn is in the database file: the test needs it in the log alone")
	}
	conn, err := writer.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO part VALUES ('prt_g01_9', 'msg_g01', 'ses_gamma', ?, ?, '{"type":"text","text":"Not committed yet, so not read yet."}')`, at+2000, at+2000); err != nil {
		t.Fatal(err)
	}

	tr := dbTranscriptOf(t, path)
	if wal, err := transcript.StatFile(path + "-wal"); err != nil || tr.Stat.Size != int64(len(file))+wal.Size {
		t.Errorf("stat size %d, want the file's %d and the log's (%v)", tr.Stat.Size, len(file), err)
	}
	res := read(t, newFormat(clockAt(at+300_000)), tr, record.FileState{})
	all := joinLines(texts(res.Rows))
	if !strings.Contains(all, "A reply that is only in the write-ahead log.") {
		t.Errorf("the log's committed turn was not read:\n%s", all)
	}
	if strings.Contains(all, "Not committed yet") {
		t.Error("an uncommitted part was read")
	}

	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		t.Fatal(err)
	}
	again := read(t, newFormat(clockAt(at+300_000)), dbTranscriptOf(t, path), stateAfter(res))
	if got := texts(fresh(again.Rows, keySet(res.Rows))); !slices.Equal(got, []string{"user/user: Not committed yet, so not read yet."}) {
		t.Errorf("after the commit, new rows:\n%s", joinLines(got))
	}
}

// TestReadOnly: a read writes nothing: not the database, nor its log;
// and a database that is not there is an error, never made.
func TestReadOnly(t *testing.T) {
	root := fixtureRoot(t)
	path := filepath.Join(root, "opencode.db")
	before, _ := os.ReadFile(path)
	st, _ := transcript.StatFile(path)
	seen := dbTranscriptOf(t, path).Stat
	read(t, testFormat(), dbTranscriptOf(t, path), record.FileState{})
	after, _ := os.ReadFile(path)
	st2, _ := transcript.StatFile(path)
	if !bytes.Equal(before, after) || st.MtimeNs != st2.MtimeNs {
		t.Error("reading changed the database file")
	}
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
		t.Errorf("reading left a log of %d bytes", wal.Size())
	}
	// SQLite makes the log a reader needs when there is none; the
	// database's stat must not move for it, or every run reads it again.
	if now := dbTranscriptOf(t, path).Stat; now != seen {
		t.Errorf("after a read, the database's stat is %+v, was %+v: the next run would read it again", now, seen)
	}

	gone := filepath.Join(root, "gone.db")
	tr := transcript.Transcript{Path: gone, Kind: record.KindOf(record.AgentOpenCode, false)}
	res := transcript.ReadFormat(testFormat(), transcript.Work{T: tr, State: record.FileState{Path: gone, Gen: 1}}, "", nil)
	if res.Err == nil {
		t.Error("reading a missing database gave no error")
	}
	if _, err := os.Stat(gone); err == nil {
		t.Error("reading a missing database made it")
	}
}

// TestSchemaDrift: a schema of another version is read for what it
// shares with this one; one with nothing to read is an error.
func TestSchemaDrift(t *testing.T) {
	readScript := func(t *testing.T, script string) transcript.Result {
		path := filepath.Join(t.TempDir(), "opencode.db")
		buildDB(t, path, script)
		tr := dbTranscriptOf(t, path)
		return transcript.ReadFormat(testFormat(), transcript.Work{T: tr, State: record.FileState{Path: path, Gen: 1}}, "", nil)
	}
	t.Run("older: no session table, no time columns", func(t *testing.T) {
		res := readScript(t, `
			CREATE TABLE message (id text PRIMARY KEY NOT NULL, session_id text NOT NULL, role text NOT NULL, data text NOT NULL);
			CREATE TABLE part (id text PRIMARY KEY NOT NULL, message_id text NOT NULL, type text NOT NULL, data text NOT NULL);
			INSERT INTO message VALUES ('msg_1', 'ses_1', 'user', '{"role":"user","time":{"created":1790000000000}}');
			INSERT INTO message VALUES ('msg_2', 'ses_1', 'assistant', '{"role":"assistant","time":{"created":1790000001000,"completed":1790000002000},"path":{"cwd":"/old"}}');
			INSERT INTO part VALUES ('prt_1', 'msg_1', 'text', '{"type":"text","text":"A prompt from an older schema"}');
			INSERT INTO part VALUES ('prt_2', 'msg_2', 'text', '{"type":"text","text":"A reply from an older schema."}');`)
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		want := []string{"user/user: A prompt from an older schema", "assistant/assistant: A reply from an older schema."}
		if got := texts(res.Rows); !slices.Equal(got, want) {
			t.Errorf("rows:\n%s", joinLines(got))
		}
		for _, r := range res.Rows {
			if r.Session != "ses_1" || r.Project != "/old" || r.Timestamp == "" {
				t.Errorf("row %+v", r.Row)
			}
		}
	})
	t.Run("newer: more tables and columns, session without directory", func(t *testing.T) {
		res := readScript(t, `
			CREATE TABLE session (id text PRIMARY KEY, project_id text, parent_id text, title text, time_created integer, time_updated integer, mood text);
			CREATE TABLE message (id text PRIMARY KEY, session_id text, time_created integer, time_updated integer, data text, shard integer);
			CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text, time_created integer, time_updated integer, data text, shard integer);
			CREATE TABLE session_entry (id text PRIMARY KEY, session_id text, data text);
			INSERT INTO session VALUES ('ses_9', 'p', NULL, 'A newer schema', 1790000000000, 1790000002000, 'calm');
			INSERT INTO message VALUES ('msg_9', 'ses_9', 1790000001000, 1790000002000, '{"role":"assistant","time":{"created":1790000001000,"completed":1790000002000},"path":{"cwd":"/new"}}', 1);
			INSERT INTO part VALUES ('prt_9', 'msg_9', 'ses_9', 1790000001000, 1790000002000, '{"type":"text","text":"A reply from a newer schema."}', 1);`)
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		want := []string{"title/ai-title: A newer schema", "assistant/assistant: A reply from a newer schema."}
		if got := texts(res.Rows); !slices.Equal(got, want) {
			t.Errorf("rows:\n%s", joinLines(got))
		}
		if res.Rows[1].Project != "/new" {
			t.Errorf("project %q, want the cwd's", res.Rows[1].Project)
		}
	})
	t.Run("nothing to read", func(t *testing.T) {
		res := readScript(t, `CREATE TABLE session (id text PRIMARY KEY, title text);`)
		if res.Err == nil || !strings.Contains(res.Err.Error(), "not an OpenCode database") {
			t.Errorf("error %v", res.Err)
		}
	})
	t.Run("not SQLite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "opencode.db")
		if err := os.WriteFile(path, []byte("this is not a database, only text that says so\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		tr := dbTranscriptOf(t, path)
		res := transcript.ReadFormat(testFormat(), transcript.Work{T: tr, State: record.FileState{Path: path, Gen: 1}}, "", nil)
		if res.Err == nil {
			t.Error("no error")
		}
	})
}

// TestLargeData: data over the limits is not read whole; what rows need
// of it is, cut.
func TestLargeData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	buildDB(t, path, schemaSQL())
	db := openRW(t, path)
	big := strings.Repeat("x", 5000)
	execSQL(t, db, `INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES ('ses_l', 'p', 'l', '/w', 'Large data', '1', 1, 2)`)
	execSQL(t, db, `INSERT INTO message VALUES ('msg_l', 'ses_l', 1, 2, ?)`,
		fmt.Sprintf(`{"role":"assistant","time":{"created":1790000000000,"completed":1790000001000},"summary":{"diffs":[{"before":%q}]}}`, big))
	execSQL(t, db, `INSERT INTO part VALUES ('prt_l1', 'msg_l', 'ses_l', 1, 2, ?)`,
		fmt.Sprintf(`{"type":"text","text":"A long reply begins here and goes on: %s","time":{"start":1790000000500}}`, big))
	execSQL(t, db, `INSERT INTO part VALUES ('prt_l2', 'msg_l', 'ses_l', 1, 2, ?)`,
		fmt.Sprintf(`{"type":"tool","tool":"write","state":{"status":"completed","input":{"filePath":"/w/big.txt","content":%q},"output":%q}}`, big, big))
	db.Close()
	checkSmallLimits(t, path, "Large data")
}

// checkSmallLimits reads the database at path with limits far below
// its data's size: its rows are still a title, a reply's text cut, and a
// write call named by its file.
func checkSmallLimits(t *testing.T, path, title string) {
	t.Helper()
	b := transcript.NewBuilder(transcript.Work{T: dbTranscriptOf(t, path), State: record.FileState{Gen: 1}}, record.AgentOpenCode)
	if _, _, _, err := readDB(transcript.Work{T: dbTranscriptOf(t, path)}, b, testNow, limits{partBytes: 1000, messageBytes: 1000, textBytes: 60}); err != nil {
		t.Fatal(err)
	}
	want := []string{"title/ai-title: " + title, "assistant/assistant: A long reply begins here and goes on: xxxxxxxxxxxxxxxxxxxxxx", "tool/tool: write: /w/big.txt"}
	if got := texts(b.Rows()); !slices.Equal(got, want) {
		t.Errorf("rows:\n%s\nwant:\n%s", joinLines(got), joinLines(want))
	}
}

// TestIdentity: a message read from another store gives the same keys
// (a session of the JSON storage, and the database OpenCode migrated it
// into; a database copied elsewhere); two messages of the same text do
// not.
func TestIdentity(t *testing.T) {
	root := fixtureRoot(t)
	storage := filepath.Join(root, "storage")
	var legacy []transcript.Extracted
	for _, tr := range legacySessions(storage, func(s string) { t.Error(s) }) {
		if tr.Session == "ses_L1" || tr.Session == "ses_L2" {
			legacy = append(legacy, read(t, testFormat(), tr, record.FileState{}).Rows...)
		}
	}

	// The database OpenCode's JSON migration (storage/json-migration.ts)
	// makes of those sessions: ids and data as they were.
	path := filepath.Join(t.TempDir(), "opencode.db")
	buildDB(t, path, schemaSQL())
	db := openRW(t, path)
	for _, id := range []string{"ses_L1", "ses_L2"} {
		s, err := readSessionFile(filepath.Join(storage, "session", "prj_legacy", id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		execSQL(t, db, `INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, '0.9.1', ?, ?)`,
			s.id, s.project, nullable(s.parent), s.id, s.directory, s.title, s.created, s.updated)
		for _, f := range jsonFiles(filepath.Join(storage, "message", id)) {
			data, _ := os.ReadFile(f)
			info, _ := decodeMessage(data)
			execSQL(t, db, `INSERT INTO message VALUES (?, ?, ?, ?, json_remove(?, '$.id', '$.sessionID'))`, info.ID, id, info.Time.Created, info.Time.Created, string(data))
			for _, pf := range jsonFiles(filepath.Join(storage, "part", info.ID)) {
				pdata, _ := os.ReadFile(pf)
				if !isPart(pdata) {
					continue // the migration skips what it cannot parse
				}
				p, _ := decodePart(pdata)
				execSQL(t, db, `INSERT INTO part VALUES (?, ?, ?, ?, ?, json_remove(?, '$.id', '$.messageID', '$.sessionID'))`,
					p.ID, info.ID, id, info.Time.Created, info.Time.Created, string(pdata))
			}
		}
	}
	db.Close()
	migrated := read(t, testFormat(), dbTranscriptOf(t, path), record.FileState{}).Rows
	if len(legacy) == 0 || !sameKeys(legacy, migrated) {
		t.Errorf("the JSON storage and the database it was migrated into give other keys:\n%s\n--\n%s",
			joinLines(texts(legacy)), joinLines(texts(migrated)))
	}

	// The same database under another path.
	orig := filepath.Join(root, "opencode.db")
	data, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(t.TempDir(), "opencode-backup.db")
	if err := os.WriteFile(moved, data, 0o644); err != nil {
		t.Fatal(err)
	}
	a := read(t, testFormat(), dbTranscriptOf(t, orig), record.FileState{}).Rows
	b := read(t, testFormat(), dbTranscriptOf(t, moved), record.FileState{}).Rows
	if !sameKeys(a, b) {
		t.Error("a database copied elsewhere gives other keys")
	}

	// msg_a05 and msg_a07 are the same text typed twice.
	var twice []transcript.Extracted
	for _, r := range a {
		if r.Text == "please run the whole suite again" {
			twice = append(twice, r)
		}
	}
	if len(twice) != 2 || twice[0].Key == twice[1].Key || twice[0].UUID == twice[1].UUID {
		t.Errorf("two messages of the same text: %+v", twice)
	}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func isPart(data []byte) bool {
	_, err := decodePart(data)
	return err == nil
}

// sameKeys reports whether a and b hold the same row keys.
func sameKeys(a, b []transcript.Extracted) bool {
	ka, kb := keySet(a), keySet(b)
	if len(ka) != len(kb) {
		return false
	}
	for k := range ka {
		if !kb[k] {
			return false
		}
	}
	return true
}
