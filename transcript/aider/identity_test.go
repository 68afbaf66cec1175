package aider

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/recall-dev/recall/record"
)

func TestSessionID(t *testing.T) {
	start := time.Date(2025, 3, 14, 7, 26, 53, 0, time.UTC)
	path := "/home/dev/webapp/.aider.chat.history.md"
	sum := sha256.Sum256([]byte(path))
	id := sessionID(path, start, 2, false)
	if want := "aider-20250314T072653Z-" + hex.EncodeToString(sum[:4]); id != want {
		t.Fatalf("id %s, want %s", id, want)
	}
	if got, ok := sessionStart(id); !ok || !got.Equal(start) {
		t.Errorf("start of %s: %v %v", id, got, ok)
	}
	if sessionID(path, start, 9, false) != id {
		t.Error("the id of a session that clashes with none depends on its line")
	}
	if other := sessionID("/home/dev/api/.aider.chat.history.md", start, 2, false); other == id {
		t.Error("two projects' sessions started in the same second have one id")
	}
	clash := sessionID(path, start, 9, true)
	if clash == id || clash != sessionID(path, start, 9, true) || clash == sessionID(path, start, 12, true) {
		t.Error("sessions of one file started in the same second are not told apart by their lines")
	}
	for _, bad := range []string{"", "aider-", "aider-20250314T072653Z", "aider-2025031XT072653Z-0123abcd",
		"ses_20250314T072653Z-0123abcd", "aider-20250314T072653Z-0123abcdef"} {
		if _, ok := sessionStart(bad); ok {
			t.Errorf("sessionStart(%q) ok", bad)
		}
	}
}

// TestUUIDs: every row of the fixtures has a UUID, no two the same, and
// the same words typed twice are two messages with two keys.
func TestUUIDs(t *testing.T) {
	uuidShape := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for _, path := range histories(t) {
		res := readAll(t, path)
		seen := map[string]int{}
		texts := map[string]uint64{}
		for _, r := range res.Rows {
			if !uuidShape.MatchString(r.UUID) || r.Key == 0 {
				t.Errorf("%s:%d: uuid %q, key %x", path, r.Line, r.UUID, r.Key)
			}
			if line, dup := seen[r.UUID]; dup {
				t.Errorf("%s: lines %d and %d have one uuid", path, line, r.Line)
			}
			seen[r.UUID] = r.Line
			if key, again := texts[r.Type+r.Text]; again && key == r.Key {
				t.Errorf("%s:%d: the same text again has the same key", path, r.Line)
			}
			texts[r.Type+r.Text] = r.Key
		}
	}
	res := readAll(t, filepath.Join(fixtures, "projects/webapp", historyName))
	var twice []uint64
	for _, r := range res.Rows {
		if r.Text == "apply the same change to the staging config" {
			twice = append(twice, r.Key)
		}
	}
	if len(twice) != 2 || twice[0] == twice[1] {
		t.Errorf("the prompt typed twice: keys %x", twice)
	}
}

// TestIdentityAgain: a history read again whole (a new generation, after
// an index is rebuilt or the file is rewritten with the same start) gives
// every message the UUID and key it had. A copy of a history at another
// path is another project's: its sessions and messages are its own.
func TestIdentityAgain(t *testing.T) {
	path := mustAbs(t, filepath.Join(fixtures, "projects/webapp", historyName))
	first := readAll(t, path)
	again := readFrom(t, path, record.FileState{Gen: 2})
	if rowsTSV(first.Rows) != rowsTSV(again.Rows) {
		t.Fatal("a second read of the whole history gives other rows")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	copied := readAll(t, writeTemp(t, string(data)))
	if len(copied.Rows) != len(first.Rows) {
		t.Fatalf("%d rows in the copy, %d in the history", len(copied.Rows), len(first.Rows))
	}
	for i, r := range copied.Rows {
		o := first.Rows[i]
		if r.Session == o.Session || r.UUID == o.UUID || r.Text != o.Text || r.Timestamp != o.Timestamp || r.Line != o.Line {
			t.Fatalf("row %d of the copy: %s %s, of the history: %s %s", i, r.Session, r.UUID, o.Session, o.UUID)
		}
	}
}

// TestHeaderYearsASessionIDHolds: a header whose start in UTC falls
// outside the years a session id holds (four digits) is refused, so that
// every session id a read gives, a later read parses back; the years at
// the edges are taken.
func TestHeaderYearsASessionIDHolds(t *testing.T) {
	east, west := time.FixedZone("east", 2*3600), time.FixedZone("west", -5*3600)
	tests := []struct {
		header string
		loc    *time.Location
		ok     bool
	}{
		{"2025-01-01 00:00:00", east, true},
		{"0001-01-01 02:00:00", east, true},
		{"0000-01-01 00:00:00", east, false},
		{"0001-01-01 01:00:00", east, false},
		{"9999-12-31 18:59:59", west, true},
		{"9999-12-31 23:30:00", west, false},
	}
	for _, tt := range tests {
		p := &parser{path: "/home/dev/app/.aider.chat.history.md", loc: tt.loc}
		err := p.header(tt.header, 1)
		if (err == nil) != tt.ok {
			t.Errorf("%s in %s: %v, want ok %v", tt.header, tt.loc, err, tt.ok)
			continue
		}
		if _, parsed := sessionStart(p.session); tt.ok && !parsed {
			t.Errorf("%s in %s: session %q does not parse back", tt.header, tt.loc, p.session)
		}
	}
}
