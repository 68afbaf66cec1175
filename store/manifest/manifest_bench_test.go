package manifest

import (
	"fmt"
	"testing"

	"github.com/recall-dev/recall/record"
)

// manifestOf builds a manifest of n transcripts shaped like a real one:
// 25 projects, paths of about 110 bytes.
func manifestOf(n int) *Manifest {
	m := sampleManifest()
	for i := range n {
		project := fmt.Sprintf("/home/dev/src/project-%02d", i%25)
		path := fmt.Sprintf("/home/dev/.claude/projects/-home-dev-src-project-%02d/%08x-0000-4000-8000-%012d.jsonl", i%25, i, i)
		m.byPath[path] = &record.FileState{Path: path, Gen: uint32(i + 1), Dev: 2049, Ino: uint64(1000000 + i), Size: int64(100000 + i),
			MtimeNs: 1775037600000000000 + int64(i), Offset: int64(100000 + i), Lines: 400, Rows: 30,
			Session: fmt.Sprintf("%08x-0000-4000-8000-%012d", i, i), Project: project, Kind: record.KindMain, Verdict: record.VerdictIndexed,
			Tail: record.Fingerprint{CRC: uint32(i), Len: 64}}
	}
	return m
}

// What an append pays for the manifest at 10k transcripts, in parts:
// reading it whole, encoding it (one file changed), and the durable
// rewrite (a checkpoint: what every commit was before the journal); then
// what a quick run pays with the journal: opening it and looking one
// path up, and committing one changed file as a journal record.
func BenchmarkManifest10k(b *testing.B) {
	dir := b.TempDir()
	if err := Commit(dir, manifestOf(10000)); err != nil {
		b.Fatal(err)
	}
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if _, err := ReadWhole(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
	m, err := ReadWhole(dir)
	if err != nil {
		b.Fatal(err)
	}
	var one *record.FileState
	for _, st := range m.byPath {
		one = st
		break
	}
	b.Run("encode", func(b *testing.B) {
		for b.Loop() {
			one.Offset++
			_ = m.encode()
		}
	})
	b.Run("checkpoint one changed", func(b *testing.B) {
		for b.Loop() {
			one.Offset++
			if err := m.checkpoint(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
	path := one.Path
	b.Run("open and look one up", func(b *testing.B) {
		for b.Loop() {
			m, err := ReadLazy(dir)
			if err != nil {
				b.Fatal(err)
			}
			if m.File(path) == nil {
				b.Fatal("not found")
			}
		}
	})
	b.Run("journal one changed", func(b *testing.B) {
		m, err := ReadLazy(dir)
		if err != nil {
			b.Fatal(err)
		}
		st := m.File(path)
		for b.Loop() {
			st.Offset++
			if err := Commit(dir, m); err != nil {
				b.Fatal(err)
			}
		}
	})
}
