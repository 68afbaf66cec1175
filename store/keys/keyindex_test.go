package keys

import (
	"cmp"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortKeyEntriesIsTheComparisonSort: the radix sort orders keys as
// the sort by key, then position from the last, did: few keys (many
// repeats), keys differing only in one byte, any keys, and none.
func TestSortKeyEntriesIsTheComparisonSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keyOf := []func(int) uint64{
		func(int) uint64 { return rng.Uint64N(5) },
		func(int) uint64 { return 0xabcdef0000000000 | rng.Uint64N(256)<<24 },
		func(int) uint64 { return rng.Uint64() },
		func(i int) uint64 { return uint64(i%3) << 56 },
	}
	for _, n := range []int{0, 1, 2, 3, 1000} {
		for k, key := range keyOf {
			var entries []keyEntry
			for i := range n {
				entries = append(entries, keyEntry{key: key(i), gen: uint32(i)}) // gen: the position
			}
			want := slices.Clone(entries)
			slices.SortFunc(want, func(a, b keyEntry) int {
				return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(b.gen, a.gen))
			})
			if got := sortKeyEntries(entries); !slices.Equal(got, want) {
				t.Fatalf("keys %d, %d entries: radix order differs", k, n)
			}
		}
	}
}

// BenchmarkEncodeKeyIndex encodes the key index of a 4 GB corpus's 1.5M
// key records (random keys, 30 records a generation), which a full
// index's last commit prepares while its manifest is written.
func BenchmarkEncodeKeyIndex(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 1_500_000
	recs := make([]byte, 0, n*RecordSize)
	for i := range n {
		recs = binary.LittleEndian.AppendUint64(recs, r.Uint64())
		recs = binary.LittleEndian.AppendUint32(recs, uint32(i/30))
	}
	b.ReportAllocs()
	for b.Loop() {
		encodeKeyIndex(recs)
	}
}
