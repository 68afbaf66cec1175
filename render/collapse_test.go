package render

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recall-dev/recall/indexer/indexertest"
	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/search"
)

// TestCollapseExplained: --explain, human and --json, says why a session
// absorbed another; --json's similar_why says it without --explain too.
func TestCollapseExplained(t *testing.T) {
	snap := indexertest.Snapshot(t, "../testdata/transcripts/issue22/projects")
	res, err := search.Run(snap, search.Request{Terms: []string{"token", "bucket"}, Limit: 10, Now: time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	var rep *rank.Session
	for i := range res.Sessions {
		if len(res.Sessions[i].Similar) > 0 {
			rep = &res.Sessions[i]
		}
	}
	if rep == nil {
		t.Fatalf("nothing collapsed: %d sessions", len(res.Sessions))
	}
	absorbed := rep.Similar[0][:7]
	note := absorbed + ": 11 of 12 messages the same (a resumed copy)"

	var human bytes.Buffer
	if err := Write(&human, res, search.Output{Format: "human", MaxMessages: 1, Context: 80, Explain: true}); err != nil {
		t.Fatal(err)
	}
	if want := "collapsed       1.000  " + note; !strings.Contains(human.String(), want) {
		t.Errorf("human --explain lacks %q:\n%s", want, human.String())
	}

	for _, explain := range []bool{true, false} {
		var out bytes.Buffer
		if err := Write(&out, res, search.Output{Format: "json", MaxMessages: 1, Context: 80, Explain: explain}); err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(out.String()) {
			var js struct {
				SessionID  string       `json:"session_id"`
				Similar    []string     `json:"similar"`
				SimilarWhy []string     `json:"similar_why"`
				Explain    []JSONFactor `json:"explain"`
			}
			if err := json.Unmarshal([]byte(line), &js); err != nil {
				t.Fatal(err)
			}
			if js.SessionID != rep.ID {
				if js.SimilarWhy != nil || strings.Contains(line, "similar_why") {
					t.Errorf("%s: similar_why %q with nothing collapsed", js.SessionID, js.SimilarWhy)
				}
				continue
			}
			if !slices.Equal(js.SimilarWhy, []string{"11 of 12 messages the same (a resumed copy)"}) {
				t.Errorf("similar_why %q", js.SimilarWhy)
			}
			has := slices.Contains(js.Explain, JSONFactor{Name: "collapsed", Value: 1, Note: note})
			if has != explain {
				t.Errorf("--json explain %v: collapsed factor present %v: %+v", explain, has, js.Explain)
			}
		}
	}
}
