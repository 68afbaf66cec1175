package opencode

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
)

// v2Schema is OpenCode 2.x's tables as 2.0.x releases make them
// (session_v2, session_message; packages/core/src/session/sql.ts), less
// the columns rows do not need.
const v2Schema = `
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL);
CREATE TABLE session_v2 (id text PRIMARY KEY, project_id text NOT NULL, workspace_id text, parent_id text,
	fork_session_id text, slug text NOT NULL, directory text NOT NULL, path text, title text, version text NOT NULL,
	time_created integer NOT NULL, time_updated integer NOT NULL, time_archived integer);
CREATE TABLE session_message (id text PRIMARY KEY, session_id text NOT NULL, type text NOT NULL, seq integer NOT NULL,
	time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE UNIQUE INDEX session_message_session_seq_idx ON session_message (session_id, seq);
`

// v2Row is a session_message row: its kind and its data, whose %d is
// the time it is written.
type v2Row struct{ kind, data string }

// writeV2 writes session (a subagent's of parent, when set) and rows,
// the first at seq firstSeq, each written at fixtureT plus its seq in
// seconds.
func writeV2(t *testing.T, path, session, parent, dir string, rows []v2Row, firstSeq int) {
	t.Helper()
	db := openRW(t, path)
	defer db.Close()
	execSQL(t, db, `INSERT OR REPLACE INTO session_v2 (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
		VALUES (?, 'prj', ?, 'slug', ?, 'Parse the TOML config', '2.0.12', ?, ?)`, session, nullable(parent), dir,
		fixtureT+int64(firstSeq)*1000, fixtureT+int64(firstSeq+len(rows))*1000)
	for i, r := range rows {
		at := fixtureT + int64(firstSeq+i)*1000
		execSQL(t, db, `INSERT INTO session_message VALUES (?, ?, ?, ?, ?, ?, ?)`,
			fmt.Sprintf("msg_%s_%02d", session, firstSeq+i), session, r.kind, firstSeq+i, at, at, fmt.Sprintf(r.data, at))
	}
}

// TestSecondGenerationRecordClasses: a database of OpenCode 2.x alone
// gives a row per prompt, reply text and finished tool call, one bash
// call per shell command, and none for OpenCode's own messages, its
// synthetic or ignored text or a reply's reasoning; a subagent's session
// gives rows of its root session.
func TestSecondGenerationRecordClasses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	buildDB(t, path, v2Schema)
	writeV2(t, path, "ses_root", "", "/home/dev/cfg", []v2Row{
		{"system", `{"time":{"created":%d},"text":"<env>cwd: /home/dev/cfg</env>"}`},
		{"user", `{"time":{"created":%d},"text":"Parse the TOML config and report bad keys","files":[],"agents":[],"references":[]}`},
		{"assistant", `{"time":{"created":%d,"completed":1795000999000},"agent":"build","model":{"id":"m","providerID":"p"},"content":[
			{"type":"reasoning","id":"r1","text":"thinking about keys"},
			{"type":"tool","id":"call_1","name":"read","state":{"status":"completed","input":{"filePath":"/home/dev/cfg/config.toml"},"content":[{"type":"text","text":"[server]\nport=1"}]}},
			{"type":"tool","id":"call_2","name":"bash","state":{"status":"error","input":{"command":"go test ./..."},"content":[]}},
			{"type":"text","id":"t1","text":"Reminder: you are in build mode","synthetic":true},
			{"type":"text","id":"t2","text":"The key porrt under [server] is misspelled."}]}`},
		{"shell", `{"time":{"created":%d,"completed":1795000999000},"callID":"c9","command":"git status","output":"clean"}`},
		{"synthetic", `{"time":{"created":%d},"sessionID":"ses_root","text":"Continue if you have next steps"}`},
		{"model-switched", `{"time":{"created":%d},"model":{"id":"m2","providerID":"p"}}`},
		{"compaction", `{"time":{"created":%d},"reason":"auto","summary":"we parsed the config","recent":""}`},
		{"user", `not json`},
		{"user", `{"time":{"created":%d},"text":"Now fix it"}`},
		{"assistant", `{"time":{"created":%d,"streamed":1795000998000,"completed":1795000999000},"agent":"build","content":[{"type":"text","text":"Renamed porrt to port."}],"finish":"stop"}`},
		{"idle", `{"time":{"created":%d},"outcome":"succeeded"}`},
	}, 1)
	writeV2(t, path, "ses_child", "ses_root", "/home/dev/cfg", []v2Row{
		{"user", `{"time":{"created":%d},"text":"Find every config loader"}`},
	}, 20)

	res := read(t, testFormat(), dbTranscriptOf(t, path), record.FileState{})
	want := []string{
		"title/ai-title: Parse the TOML config",
		"user/user: Parse the TOML config and report bad keys",
		"tool/tool: read: /home/dev/cfg/config.toml",
		"tool/tool: bash: go test ./...",
		"assistant/assistant: The key porrt under [server] is misspelled.",
		"tool/tool: bash: git status",
		"user/user: Now fix it",
		"assistant/assistant: Renamed porrt to port.",
		"agent/user: Find every config loader",
	}
	if got := texts(res.Rows); !slices.Equal(got, want) {
		t.Errorf("rows:\n%s\nwant:\n%s", joinLines(got), joinLines(want))
	}
	for _, r := range res.Rows {
		if r.Session != "ses_root" || r.Project != "/home/dev/cfg" || r.Agent != record.AgentOpenCode || r.Timestamp == "" {
			t.Errorf("row %+v", r.Row)
		}
	}
	if res.Counts[filter.Noise] != 6 || res.Counts[filter.BadLine] != 1 {
		t.Errorf("noise %d (want 6: system, synthetic text, synthetic, model switch, compaction, idle), bad %d (want 1)",
			res.Counts[filter.Noise], res.Counts[filter.BadLine])
	}
	if keys := keySet(res.Rows); len(keys) != len(res.Rows) {
		t.Errorf("%d keys for %d rows: two replies' items of the same id (t1) share one", len(keys), len(res.Rows))
	}
}

// TestBothGenerations: a database OpenCode 2.x took over keeps the 1.x
// tables frozen and copies their messages into session_message; the
// session's rows are 1.x's, read once, and the messages written after
// the upgrade, which only session_message holds. A read from the cursor
// after a new 2.x message gives that message alone.
func TestBothGenerations(t *testing.T) {
	root := fixtureRoot(t)
	path := filepath.Join(root, "opencode.db")
	before := read(t, testFormat(), dbTranscriptOf(t, path), record.FileState{})

	db := openRW(t, path)
	for _, stmt := range strings.Split(v2Schema, ";") {
		if strings.TrimSpace(stmt) != "" && !strings.Contains(stmt, "TABLE project") {
			execSQL(t, db, stmt)
		}
	}
	// ses_gamma migrated: a backfilled copy of each of its 1.x messages,
	// then a turn after the upgrade.
	var n int
	rows, err := db.Query(`SELECT id, json_extract(data, '$.role'), time_created FROM message WHERE session_id = 'ses_gamma' ORDER BY time_created, id`)
	if err != nil {
		t.Fatal(err)
	}
	type old struct {
		id, role string
		at       int64
	}
	var olds []old
	for rows.Next() {
		var o old
		if err := rows.Scan(&o.id, &o.role, &o.at); err != nil {
			t.Fatal(err)
		}
		olds = append(olds, o)
	}
	rows.Close()
	for _, o := range olds {
		n++
		execSQL(t, db, `INSERT INTO session_message VALUES (?, 'ses_gamma', ?, ?, ?, ?, ?)`, "evt_legacy_backfill_m_"+o.id, o.role, n, o.at, fixtureT+300_000,
			fmt.Sprintf(`{"time":{"created":%d,"completed":%d},"text":"a copy","content":[{"type":"text","id":"c","text":"a copy"}]}`, o.at, o.at+1))
	}
	at := int64(fixtureT + 310_000)
	execSQL(t, db, `INSERT INTO session_v2 (id, project_id, slug, directory, title, version, time_created, time_updated)
		SELECT id, project_id, slug, directory, title, '2.0.12', time_created, ? FROM session WHERE id = 'ses_gamma'`, at)
	execSQL(t, db, `INSERT INTO session_message VALUES ('msg_after1', 'ses_gamma', 'user', ?, ?, ?, ?)`, n+1, at, at,
		fmt.Sprintf(`{"time":{"created":%d},"text":"After the upgrade: add a --strict flag"}`, at))
	execSQL(t, db, `INSERT INTO session_message VALUES ('msg_after2', 'ses_gamma', 'assistant', ?, ?, ?, ?)`, n+2, at+10, at+20,
		fmt.Sprintf(`{"time":{"created":%d,"completed":%d},"content":[{"type":"text","id":"t","text":"Added --strict."}]}`, at+10, at+20))
	db.Close()

	later := newFormat(clockAt(at + 300_000))
	all := read(t, later, dbTranscriptOf(t, path), record.FileState{})
	if got := texts(fresh(all.Rows, keySet(before.Rows))); !slices.Equal(got, []string{
		"user/user: After the upgrade: add a --strict flag", "assistant/assistant: Added --strict."}) {
		t.Errorf("a first read of the upgraded database, past the 1.x rows:\n%s", joinLines(got))
	}
	if got := len(all.Rows) - 2; got != len(before.Rows) {
		t.Errorf("%d rows besides the new turn, want the %d of 1.x", got, len(before.Rows))
	}
	if all.Counts[filter.Copy] != int64(len(olds)) {
		t.Errorf("copies counted %d, want %d", all.Counts[filter.Copy], len(olds))
	}

	again := read(t, later, dbTranscriptOf(t, path), stateAfter(before))
	if got := texts(fresh(again.Rows, keySet(before.Rows))); !slices.Equal(got, []string{
		"user/user: After the upgrade: add a --strict flag", "assistant/assistant: Added --strict."}) {
		t.Errorf("a read from the 1.x cursor:\n%s", joinLines(got))
	}
	db = openRW(t, path)
	execSQL(t, db, `INSERT INTO session_message VALUES ('msg_after3', 'ses_gamma', 'user', ?, ?, ?, ?)`, n+3, at+60_000, at+60_000,
		fmt.Sprintf(`{"time":{"created":%d},"text":"And document it"}`, at+60_000))
	db.Close()
	third := read(t, newFormat(clockAt(at+600_000)), dbTranscriptOf(t, path), stateAfter(again))
	if got := texts(fresh(third.Rows, keySet(all.Rows))); !slices.Equal(got, []string{"user/user: And document it"}) {
		t.Errorf("a read after one more message:\n%s", joinLines(got))
	}
}

// TestSecondGenerationLargeData: a reply past the size read whole gives
// the same rows, each text cut, its tool calls named by their input.
func TestSecondGenerationLargeData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	buildDB(t, path, v2Schema)
	big := strings.Repeat("x", 5000)
	writeV2(t, path, "ses_l", "", "/w", []v2Row{
		{"assistant", `{"time":{"created":%d,"completed":1795000999000},"content":[{"type":"text","id":"t","text":"A long reply begins here and goes on: ` + big + `"},` +
			`{"type":"tool","id":"c","name":"write","state":{"status":"completed","input":{"path":"/w/big.txt","content":"` + big + `"},"content":[{"type":"text","text":"` + big + `"}]}}]}`},
	}, 1)
	checkSmallLimits(t, path, "Parse the TOML config")
}

// TestSecondGenerationTurnInProgress: a reply OpenCode 2.x is still
// writing (no completion time, its row updated in place) is left for a
// later read, which takes it whole once it is done; the prompt before it
// is read at once.
func TestSecondGenerationTurnInProgress(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	buildDB(t, path, v2Schema)
	writeV2(t, path, "ses_run", "", "/w", []v2Row{
		{"user", `{"time":{"created":%d},"text":"Port the loader to the new API"}`},
		{"assistant", `{"time":{"created":%d},"content":[{"type":"text","text":"Porting the loa"}]}`},
	}, 1)
	first := read(t, testFormat(), dbTranscriptOf(t, path), record.FileState{})
	if got := texts(first.Rows); !slices.Equal(got, []string{"title/ai-title: Parse the TOML config", "user/user: Port the loader to the new API"}) {
		t.Errorf("first read:\n%s", joinLines(got))
	}
	db := openRW(t, path)
	done := int64(fixtureT + 5_000)
	execSQL(t, db, `UPDATE session_message SET time_updated = ?, data = ? WHERE id = 'msg_ses_run_02'`, done,
		fmt.Sprintf(`{"time":{"created":%d,"completed":%d},"content":[{"type":"text","text":"Ported the loader; the old API is gone."}]}`, fixtureT+2000, done))
	db.Close()
	second := read(t, testFormat(), dbTranscriptOf(t, path), stateAfter(first))
	if got := texts(fresh(second.Rows, keySet(first.Rows))); !slices.Equal(got, []string{"assistant/assistant: Ported the loader; the old API is gone."}) {
		t.Errorf("second read:\n%s", joinLines(got))
	}
}
