package search

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/recall-dev/recall/store/terms"
)

// TestGroupInShardsMatchesOneShard groups random segment keys in several
// shards and checks the sessions against a plain grouping: the same
// sessions in the order first seen, each with its keys in perSeg's order,
// ids of any last byte (an empty one too) included.
func TestGroupInShardsMatchesOneShard(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	ids := []string{"", "a", "é", "zz\\t"}
	for i := range 300 {
		ids = append(ids, fmt.Sprintf("%08x-0000-4000-8000-%012x", r.Uint32(), i))
	}
	for _, segments := range []int{0, 1, 3, 10} {
		perSeg := make([][]keyBound, segments)
		keys := 0
		for seg := range perSeg {
			for k := range r.Intn(400) {
				id := ids[r.Intn(len(ids))]
				perSeg[seg] = append(perSeg[seg], keyBound{key: terms.Key{Session: id, Project: fmt.Sprint(k % 3)}, seg: int32(seg), start: int32(k), end: int32(k + 1)})
				keys++
			}
		}
		want := referenceGroups(perSeg)
		for _, shards := range []int{1, 2, 3, 8} {
			got := groupInShards(perSeg, keys, shards)
			if len(got) != len(want) {
				t.Fatalf("%d segments, %d shards: %d sessions, want %d", segments, shards, len(got), len(want))
			}
			for i := range want {
				if got[i].id != want[i].id || fmt.Sprint(got[i].parts) != fmt.Sprint(want[i].parts) {
					t.Fatalf("%d segments, %d shards: session %d is %q with %v, want %q with %v", segments, shards, i, got[i].id, got[i].parts, want[i].id, want[i].parts)
				}
			}
		}
	}
}

// referenceGroups groups perSeg's keys by session the plain way.
func referenceGroups(perSeg [][]keyBound) []*sessionBound {
	var order []*sessionBound
	seen := map[string]*sessionBound{}
	for _, kbs := range perSeg {
		for _, kb := range kbs {
			sb := seen[kb.key.Session]
			if sb == nil {
				sb = &sessionBound{id: kb.key.Session}
				seen[kb.key.Session] = sb
				order = append(order, sb)
			}
			sb.parts = append(sb.parts, kb)
		}
	}
	return order
}
