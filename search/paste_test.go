package search

import (
	"slices"
	"strings"
	"testing"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/indexer/indexertest"
)

// The sessions of testdata/transcripts/issue22 (issue 22: two sessions
// merged as near-duplicates because both hold the same pasted brief).
const (
	pasteMonday  = "5a1f0c3e-2222-4222-8222-222222222221" // pastes a 3 KB assignment, builds the token bucket
	pasteTuesday = "6b7d41a9-2222-4222-8222-222222222222" // pastes it again a day later, Redis and the load test
	pasteResumed = "7c93e5b1-2222-4222-8222-222222222223" // Monday's session resumed under new ids, one more prompt
)

func pasteIndex(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	return indexertest.Snapshot(t, "../testdata/transcripts/issue22/projects")
}

// TestSharedPasteKeepsSessionsApart: two sessions a day apart that hold
// the same 3 KB pasted assignment, about different work, are both shown,
// whatever the query matches of them; the resumed copy of one collapses
// into it, and says why. The term index and the full scan agree.
func TestSharedPasteKeepsSessionsApart(t *testing.T) {
	snap := pasteIndex(t)
	for _, terms := range [][]string{
		{"rate", "limiter", "assignment"}, // words of the paste, in every session
		{"what did the rate limiter assignment ask for?"},
		{"token", "bucket"},
		{"redis", "load", "test"},
	} {
		t.Run(strings.Join(terms, " "), func(t *testing.T) {
			req := Request{Terms: terms, Limit: 10, Now: accelNow, Explain: true, Cutoff: true}
			full := req
			full.FullScan = true
			want, err := Run(snap, full)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Run(snap, req)
			if err != nil {
				t.Fatal(err)
			}
			compareSessions(t, got.Sessions, want.Sessions)
			if !got.Stats.TermIndex {
				t.Error("not ranked from the term index")
			}
			shown := sessionIDs(got.Sessions)
			if !slices.Contains(shown, pasteMonday) && !slices.Contains(shown, pasteResumed) ||
				!slices.Contains(shown, pasteTuesday) || len(shown) != 2 {
				t.Fatalf("shown %v, want Monday's (or its resumed copy) and Tuesday's", shown)
			}
			for _, s := range got.Sessions {
				switch s.ID {
				case pasteTuesday:
					if len(s.Similar) != 0 {
						t.Errorf("Tuesday absorbed %v (%q)", s.Similar, s.SimilarWhy)
					}
				default:
					other := map[string]string{pasteMonday: pasteResumed, pasteResumed: pasteMonday}[s.ID]
					if !slices.Equal(s.Similar, []string{other}) || !slices.Equal(s.SimilarWhy, []string{"11 of 12 messages the same (a resumed copy)"}) {
						t.Errorf("%s: similar %v %q, want %s, 11 of 12 messages the same (a resumed copy)", s.ID, s.Similar, s.SimilarWhy, other)
					}
				}
			}
		})
	}
}
