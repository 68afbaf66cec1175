package benchgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/recall-dev/recall/internal/errpath"
)

// threadTail is what a new record needs from the last threaded record of
// a transcript to continue its chain.
type threadTail struct {
	UUID      string `json:"uuid"`
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Version   string `json:"version"`
	GitBranch string `json:"gitBranch"`
	Timestamp string `json:"timestamp"`
	AgentID   string `json:"agentId"`
	Sidechain bool   `json:"isSidechain"`
}

// AppendTurns appends n records to the transcript at path, alternating a
// typed prompt and an assistant answer, chained to its last threaded
// record, the way Claude Code appends while a session goes on. It is what
// the incremental-index benchmark feeds the indexer. The text comes from
// the small built-in source: the point is the bytes and the chain, and
// loading the Go tree would dwarf the work being measured.
func AppendTurns(path string, n int, seed uint64) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return errpath.Wrap("read", path, err)
	}
	tail, err := lastThreaded(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	at, err := time.Parse(timestampLayout, tail.Timestamp)
	if err != nil {
		return fmt.Errorf("%s: timestamp %q: %w", path, tail.Timestamp, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return errpath.Wrap("open", path, err)
	}
	out := &transcript{path: path, file: f}
	out.w = newBufferedWriter(f)
	ver := cliVersion{name: tail.Version, envelopeV2: true}
	r := rand.New(rand.NewPCG(seed, 0x617070656e64)) // "append"
	var stats Stats
	lw := &lineWriter{
		r: r, ver: ver, clock: at, parent: tail.UUID, out: out, stats: &stats,
		env: envelope{sessionID: tail.SessionID, cwd: tail.Cwd, gitBranch: tail.GitBranch, entrypoint: "cli", agentID: tail.AgentID, sidechain: tail.Sidechain},
	}
	t := newTopic(fallbackTextSource(), r)
	p := &project{name: "project", cwd: tail.Cwd, module: "example.com/project"}
	for i := range n {
		lw.tick(10*time.Second, 3*time.Minute)
		if i%2 == 0 {
			prompt := t.typedPrompt(r, p)
			lw.userString(newUUID(r), prompt, kindPrompt, func(w *jsonWriter) { w.str("permissionMode", "default") })
			continue
		}
		lw.assistantText(lw.newResponse(models[0]), t.assistantAnswer(r), "end_turn")
	}
	if lw.err != nil {
		out.file.Close()
		return lw.err
	}
	return out.close()
}

// lastThreaded finds the last record with a uuid in a transcript.
func lastThreaded(data []byte) (threadTail, error) {
	data = bytes.TrimRight(data, "\n")
	for len(data) > 0 {
		i := bytes.LastIndexByte(data, '\n')
		line := data[i+1:]
		data = data[:max(i, 0)]
		var t threadTail
		if json.Unmarshal(line, &t) == nil && t.UUID != "" && t.SessionID != "" {
			return t, nil
		}
		if i < 0 {
			break
		}
	}
	return threadTail{}, fmt.Errorf("no threaded record to continue")
}
