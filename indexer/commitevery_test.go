package indexer

import (
	"testing"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// TestCommitEveryBoundsTheCommits: a run commits every checkpointBytes
// of input until that would be more than commitsPerRun commits, then
// every commitsPerRun-th of its input.
func TestCommitEveryBoundsTheCommits(t *testing.T) {
	for _, tc := range []struct {
		total, want int64
	}{
		{0, checkpointBytes},
		{1 << 20, checkpointBytes},
		{commitsPerRun * checkpointBytes, checkpointBytes},
		{4 << 30, checkpointBytes},
		{5 << 30, 5 << 28},
		{16 << 30, 4 << 30},
	} {
		if got := commitEvery(tc.total); got != tc.want {
			t.Errorf("commitEvery(%d) = %d, want %d", tc.total, got, tc.want)
		}
	}
}

// TestPlannedBytesCountsWhatIsLeftToRead: a transcript read up to an
// offset counts only what lies past it, and one cut below its offset
// counts nothing.
func TestPlannedBytesCountsWhatIsLeftToRead(t *testing.T) {
	plan := func(size, offset int64) planned {
		return planned{t: &transcript.Transcript{Stat: transcript.FileStat{Size: size}}, st: &record.FileState{Offset: offset}}
	}
	work := []planned{plan(1000, 0), plan(1000, 400), plan(100, 300)}
	if got := plannedBytes(work); got != 1600 {
		t.Errorf("plannedBytes = %d, want 1600", got)
	}
}
