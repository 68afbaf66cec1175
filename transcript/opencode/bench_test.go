package opencode

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// BenchmarkOpenCodeRead reads a whole OpenCode database as the indexer
// does (a first read: every session). The database is the bench
// generator's (go run ./cmd/recall-bench gen --mixed --size 192MB --out
// DIR), named by OPENCODE_BENCH_DB; without it, the fixtures' database
// grown by copying its sessions.
func BenchmarkOpenCodeRead(b *testing.B) {
	path := os.Getenv("OPENCODE_BENCH_DB")
	if path == "" {
		path = benchDB(b)
	}
	tr, ok := dbTranscript(path, func(s string) { b.Fatal(s) })
	if !ok {
		b.Fatalf("no database at %s", path)
	}
	size := tr.Stat.Size
	b.SetBytes(size)
	b.ReportAllocs()
	br := bufio.NewReaderSize(nil, 1<<16)
	b.ResetTimer()
	for b.Loop() {
		res := transcript.ReadFormat(Format(), transcript.Work{T: tr, State: record.FileState{Path: tr.Path, Gen: 1}}, "", br)
		if res.Err != nil || len(res.Rows) == 0 {
			b.Fatalf("read: %v, %d rows", res.Err, len(res.Rows))
		}
	}
}

// benchDB builds a database from the fixtures' script and copies its
// sessions, messages and parts many times, with long tool outputs and
// replies, as real sessions have.
func benchDB(b *testing.B) string {
	script, err := os.ReadFile(filepath.Join(fixtures, "opencode.sql"))
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "opencode.db")
	buildDB(b, path, string(script))
	db := openRW(b, path)
	defer db.Close()
	for i := range 30 {
		s := "_c" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		execSQL(b, db, `INSERT INTO session SELECT id||?, project_id, CASE WHEN parent_id IS NULL THEN NULL ELSE parent_id||? END, slug, directory, title, version, share_url, summary_additions, summary_deletions, summary_files, summary_diffs, revert, permission, time_created, time_updated, time_compacting, time_archived, workspace_id FROM session WHERE id NOT LIKE '%\_c%' ESCAPE '\'`, s, s)
		execSQL(b, db, `INSERT INTO message SELECT id||?, session_id||?, time_created, time_updated, data FROM message WHERE id NOT LIKE '%\_c%' ESCAPE '\'`, s, s)
		execSQL(b, db, `INSERT INTO part SELECT id||?, message_id||?, session_id||?, time_created, time_updated,
			CASE WHEN NOT json_valid(data) THEN data ELSE CASE json_extract(data, '$.type')
			WHEN 'tool' THEN json_set(data, '$.state.output', printf('%.*c', 20000, 'x'))
			WHEN 'text' THEN json_set(data, '$.text', json_extract(data, '$.text')||printf('%.*c', 3000, 'y'))
			ELSE data END END FROM part WHERE id NOT LIKE '%\_c%' ESCAPE '\'`, s, s, s)
	}
	return path
}
