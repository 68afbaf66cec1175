package indexer

import (
	"testing"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// TestAheadBytes: a file counts in the read-ahead window by the rows it
// will hold, its bytes weighed when they are all text or compressed.
func TestAheadBytes(t *testing.T) {
	tests := []struct {
		name string
		kind string
		path string
		want int64
	}{
		{"Claude Code's JSONL", record.KindMain, "/p/s.jsonl", 1000},
		{"Codex's JSONL", record.KindOf(record.AgentCodex, false), "/c/rollout.jsonl", 1000},
		{"Codex's compressed rollout", record.KindOf(record.AgentCodex, false), "/c/rollout.jsonl.zst", 1000 * transcript.DenseWeight},
		{"Aider's markdown history", record.KindOf(record.AgentAider, false), "/a/.aider.chat.history.md", 1000 * transcript.DenseWeight},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := planned{t: &transcript.Transcript{Path: tt.path, Kind: tt.kind, Stat: transcript.FileStat{Size: 1500}}, st: &record.FileState{Offset: 500}}
			if got := p.aheadBytes(); got != tt.want {
				t.Errorf("aheadBytes = %d, want %d", got, tt.want)
			}
		})
	}
}
