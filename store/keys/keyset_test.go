package keys

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// keySet answers the same whether it scans the records or has built its
// table, with later records winning over earlier ones for the same key.
func TestKeySetScanAndTableAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var raw []byte
	want := map[uint64]uint32{}
	for i := range 5000 {
		key := uint64(r.IntN(3000) + 1) // repeats: a later record wins
		gen := uint32(i)
		raw = binary.LittleEndian.AppendUint64(raw, key)
		raw = binary.LittleEndian.AppendUint32(raw, gen)
		want[key] = gen
	}
	raw = append(raw, 1, 2, 3) // a torn record is ignored
	s := NewSet(raw)
	for i := range 200 { // past ScanLookups: the table gets built midway
		key := uint64(i*7 + 1)
		got, ok := s.Get(key)
		if wantGen, wantOK := want[key]; got != wantGen || ok != wantOK {
			t.Fatalf("lookup %d of key %d = %d, %v; want %d, %v", i, key, got, ok, wantGen, wantOK)
		}
		s.Put(key+100000, uint32(i))
		want[key+100000] = uint32(i)
	}
	if s.table.keys == nil {
		t.Fatal("the table was never built")
	}
	for key, gen := range want {
		if got, ok := s.Get(key); !ok || got != gen {
			t.Fatalf("key %d = %d, %v; want %d", key, got, ok, gen)
		}
	}
	if _, ok := s.Get(999999999); ok {
		t.Fatal("a key never added was found")
	}
}

// keyTable keeps every key's latest generation across the doublings a
// full index makes from an empty table, and never stores key 0 (a row
// without a uuid): used counts only the others.
func TestKeyTableGrowsAndOverwrites(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	table := newKeyTable(0)
	want := map[uint64]uint32{}
	for i := range 50000 {
		key := uint64(r.IntN(30000)) // 0 included; repeats overwrite
		table.put(key, uint32(i))
		if key != 0 {
			want[key] = uint32(i)
		}
	}
	if len(table.keys) <= 1024 || len(table.gens) != len(table.keys) {
		t.Fatalf("table of %d keys and %d generations after %d keys: it never grew", len(table.keys), len(table.gens), len(want))
	}
	if table.used != len(want) {
		t.Fatalf("%d slots used, want %d", table.used, len(want))
	}
	for key, gen := range want {
		if got, ok := table.get(key); !ok || got != gen {
			t.Fatalf("key %d = %d, %v; want %d", key, got, ok, gen)
		}
	}
}
