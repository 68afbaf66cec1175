package manifest

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/recall-dev/recall/record"
)

// TestFailedUpgradeKeepsOldManifest: a checkpoint that fails to write
// (a full disk) over an index with an older manifest leaves that
// manifest: the index still reads as committed, rather than as rows
// without a manifest that only a recovery from the rows reads again
// (which loses what rows cannot say: forgotten transcripts, forks).
// A full disk is played by a file size limit.
func TestFailedUpgradeKeepsOldManifest(t *testing.T) {
	dir := t.TempDir()
	old := sampleManifest()
	old.Format = FormatVersion
	enc := old.encode()
	v2 := []byte("recall-manifest\tv2\nseq\t3\nhead\t00000000\n") // any bytes: what matters is that it stays
	must(t, os.WriteFile(filepath.Join(dir, NameFor(2)), v2, 0o600))
	m := sampleManifest()
	m.Format = FormatVersion
	for i := range 200 {
		p := fmt.Sprintf("/p/%04d.jsonl", i)
		m.byPath[p] = &record.FileState{Path: p, Gen: uint32(i), Kind: record.KindMain, Verdict: record.VerdictIndexed}
	}
	var lim syscall.Rlimit
	must(t, syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim))
	signal.Ignore(syscall.SIGXFSZ)
	defer signal.Reset(syscall.SIGXFSZ)
	small := lim
	small.Cur = uint64(len(enc)) // far less than m's checkpoint
	must(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &small))
	err := Commit(dir, m)
	must(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim))
	if err == nil {
		t.Fatal("the checkpoint was written past the file size limit: the test did not play a full disk")
	}
	got, rerr := os.ReadFile(filepath.Join(dir, NameFor(2)))
	if errors.Is(rerr, os.ErrNotExist) {
		t.Fatalf("a failed checkpoint (%v) removed the v2 manifest: the index is left without one", err)
	}
	must(t, rerr)
	if string(got) != string(v2) {
		t.Fatal("the v2 manifest changed")
	}
}

// TestFailedJournalAppendLeavesNoTornRecord: a journal commit that fails
// part way (a full disk) was not acknowledged; what it wrote of its record
// is cut, so the run's clean-up, and the next run, can cut the data files
// back to the last commit instead of finding a torn record beside rows
// past it, which only a recovery from the rows (losing forgotten
// transcripts, forks) gets past.
func TestFailedJournalAppendLeavesNoTornRecord(t *testing.T) {
	dir, states, ends := journaledIndex(t)
	m, err := ReadLazy(dir)
	must(t, err)
	writeData(t, dir, m, 0)
	for i := range 50 {
		p := fmt.Sprintf("/p/%04d.jsonl", i)
		m.byPath[p] = &record.FileState{Path: p, Gen: uint32(i), Kind: record.KindMain, Verdict: record.VerdictIndexed}
	}
	m.RowsBytes += 500
	writeData(t, dir, m, 0) // the run's rows, past what the last commit names
	var lim syscall.Rlimit
	must(t, syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim))
	signal.Ignore(syscall.SIGXFSZ)
	defer signal.Reset(syscall.SIGXFSZ)
	small := lim
	small.Cur = uint64(ends[3] + 100) // room for part of the record only
	must(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &small))
	err = Commit(dir, m)
	must(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim))
	if err == nil {
		t.Fatal("the record was appended past the file size limit: the test did not play a full disk")
	}
	got, err := ReadLazy(dir)
	must(t, err)
	got.LoadAll()
	sameState(t, got, states[3])
	if err := CheckJournal(dir, got); err != nil {
		t.Fatalf("after a failed append: %v", err)
	}
}
