package benchrun

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/recall-dev/recall/benchgen"
	"github.com/recall-dev/recall/internal/errpath"
)

// corpusInfo is stored next to a generated corpus so a later run can
// reuse it instead of writing gigabytes again. Reuse needs the same
// seed, size, generator format and Go version (the text source).
type corpusInfo struct {
	Format      int    `json:"format"`
	Seed        uint64 `json:"seed"`
	Size        int64  `json:"size"`
	GoVersion   string `json:"goVersion"`
	Files       int    `json:"files"`
	Sessions    int    `json:"sessions"`
	Subagents   int    `json:"subagents"`
	Forks       int    `json:"forks"`
	Headless    int    `json:"headless"`
	Projects    int    `json:"projects"`
	Bytes       int64  `json:"bytes"`
	HumanText   int64  `json:"humanTextBytes"`
	GenerateSec string `json:"generateSeconds"`
	TextOrigin  string `json:"textOrigin"`
	// A mixed corpus also holds the other agents' sessions; the fields
	// above count its Claude Code part. Left out of a Claude Code
	// corpus's marker, which stays as it was.
	Mixed       bool        `json:"mixed,omitempty"`
	MixedFormat int         `json:"mixedFormat,omitempty"`
	Agents      []agentInfo `json:"agents,omitempty"`
}

// agentInfo is one other agent's part of a mixed corpus.
type agentInfo struct {
	Agent      string `json:"agent"`
	Dir        string `json:"dir"`
	Files      int    `json:"files"`
	Bytes      int64  `json:"bytes"`
	Sessions   int    `json:"sessions"`
	Projects   int    `json:"projects"`
	Subagents  int    `json:"subagents,omitempty"`
	Forks      int    `json:"forks,omitempty"`
	Archived   int    `json:"archived,omitempty"`
	Compressed int    `json:"compressed,omitempty"`
}

func agentInfos(sums []benchgen.AgentSummary) []agentInfo {
	out := make([]agentInfo, len(sums))
	for i, s := range sums {
		out[i] = agentInfo{Agent: s.Agent, Dir: s.Dir, Files: s.Files, Bytes: s.Bytes, Sessions: s.Sessions, Projects: s.Projects,
			Subagents: s.Subagents, Forks: s.Forks, Archived: s.Archived, Compressed: s.Compressed}
	}
	return out
}

// totalFiles and totalBytes count a corpus's files of every agent.
func (c corpusInfo) totalFiles() int {
	n := c.Files
	for _, a := range c.Agents {
		n += a.Files
	}
	return n
}

func (c corpusInfo) totalBytes() int64 {
	n := c.Bytes
	for _, a := range c.Agents {
		n += a.Bytes
	}
	return n
}

func (c corpusInfo) agentFiles() int { return c.totalFiles() - c.Files }

// corpusFormat changes whenever the generator's output changes, so stale
// corpora are regenerated rather than silently reused.
const corpusFormat = 1

// mixedFormat changes whenever the other agents' sessions change, so a
// stale mixed corpus is regenerated; a Claude Code corpus ignores it.
const mixedFormat = 4

const corpusInfoFile = "recall-bench-corpus.json"

// ensureCorpus returns a corpus of the given size and seed under dir,
// generating it unless a matching one is already there.
// With mixed it also holds the other agents' sessions
// (benchgen.Options.Mixed).
func ensureCorpus(dir string, size int64, seed uint64, mixed bool, log io.Writer) (corpusInfo, error) {
	want := corpusInfo{Format: corpusFormat, Seed: seed, Size: size, GoVersion: runtime.Version()}
	if mixed {
		want.Mixed, want.MixedFormat = true, mixedFormat
	}
	if have, err := readCorpusInfo(dir); err == nil && sameCorpus(have, want) {
		fmt.Fprintf(log, "recall-bench: reusing corpus %s (%s)\n", dir, benchgen.FormatSize(have.Bytes))
		return have, nil
	}
	// The marker goes first so an interrupted generation is never reused.
	if err := os.Remove(filepath.Join(dir, corpusInfoFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return corpusInfo{}, fmt.Errorf("remove stale corpus marker: %w", err)
	}
	kind := ""
	if mixed {
		kind = " mixed"
	}
	fmt.Fprintf(log, "recall-bench: generating %s%s corpus in %s\n", benchgen.FormatSize(size), kind, dir)
	sum, err := benchgen.Generate(benchgen.Options{Dir: dir, Size: size, Seed: seed, Overwrite: true, Log: log, Mixed: mixed})
	if err != nil {
		return corpusInfo{}, fmt.Errorf("generate corpus: %w", err)
	}
	fmt.Fprintf(log, "recall-bench gen: %s\n", sum)
	if mixed {
		fmt.Fprintf(log, "recall-bench gen: other agents: %s\n", sum.AgentsString())
		want.Agents = agentInfos(sum.Agents)
	}
	info := want
	info.Files, info.Sessions, info.Subagents = sum.Files, sum.Sessions, sum.Subagents
	info.Forks, info.Headless, info.Projects = sum.Forks, sum.Headless, sum.Projects
	info.Bytes, info.HumanText, info.TextOrigin = sum.Bytes, sum.HumanTextBytes, sum.TextOrigin
	info.GenerateSec = fmt.Sprintf("%.1f", sum.Elapsed.Seconds())
	return info, writeCorpusInfo(dir, info)
}

func sameCorpus(have, want corpusInfo) bool {
	return have.Format == want.Format && have.Seed == want.Seed && have.Size == want.Size && have.GoVersion == want.GoVersion &&
		have.Mixed == want.Mixed && have.MixedFormat == want.MixedFormat
}

func readCorpusInfo(dir string) (corpusInfo, error) {
	var info corpusInfo
	data, err := os.ReadFile(filepath.Join(dir, corpusInfoFile))
	if err != nil {
		return info, err
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return info, fmt.Errorf("parse %s: %w", corpusInfoFile, err)
	}
	return info, nil
}

func writeCorpusInfo(dir string, info corpusInfo) error {
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return fmt.Errorf("encode corpus marker: %w", err)
	}
	path := filepath.Join(dir, corpusInfoFile)
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return errpath.Wrap("write", path, err)
	}
	return nil
}

// agentCorpusInfo marks a folder holding only other agents' sessions:
// scale times those of the mixed corpus of the same size and seed, in
// the same projects, none more (the no-change check's scaling
// measurement).
type agentCorpusInfo struct {
	Format    int         `json:"format"`
	Seed      uint64      `json:"seed"`
	Size      int64       `json:"size"`
	Scale     int         `json:"scale"`
	GoVersion string      `json:"goVersion"`
	Agents    []agentInfo `json:"agents"`
}

const agentCorpusInfoFile = "recall-bench-agents.json"

// ensureAgentCorpus returns the agents' folders under dir, generating
// them unless matching ones are there.
func ensureAgentCorpus(dir string, size int64, seed uint64, scale int, log io.Writer) ([]agentInfo, error) {
	want := agentCorpusInfo{Format: mixedFormat, Seed: seed, Size: size, Scale: scale, GoVersion: runtime.Version()}
	marker := filepath.Join(dir, agentCorpusInfoFile)
	if data, err := os.ReadFile(marker); err == nil {
		var have agentCorpusInfo
		if json.Unmarshal(data, &have) == nil && have.Format == want.Format && have.Seed == want.Seed &&
			have.Size == want.Size && have.Scale == want.Scale && have.GoVersion == want.GoVersion {
			fmt.Fprintf(log, "recall-bench: reusing the other agents' sessions ×%d in %s\n", scale, dir)
			return have.Agents, nil
		}
	}
	if err := os.Remove(marker); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("remove stale corpus marker: %w", err)
	}
	base := int64(float64(size) * benchgen.MixedShare)
	bytes := base * int64(scale)
	fmt.Fprintf(log, "recall-bench: generating %s of other agents' sessions (×%d) in %s\n", benchgen.FormatSize(bytes), scale, dir)
	sums, err := benchgen.GenerateAgents(benchgen.AgentOptions{Dir: dir, ProjectsSize: size, Bytes: bytes, BaseBytes: base, Seed: seed, Overwrite: true, Log: log})
	if err != nil {
		return nil, fmt.Errorf("generate agents' sessions: %w", err)
	}
	want.Agents = agentInfos(sums)
	data, err := json.MarshalIndent(want, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode corpus marker: %w", err)
	}
	if err := os.WriteFile(marker, append(data, '\n'), 0o644); err != nil {
		return nil, errpath.Wrap("write", marker, err)
	}
	return want.Agents, nil
}

// appendTarget picks the transcript the incremental benchmark appends
// to: an ordinary interactive session that recall will index, i.e. not
// a headless run (first line queue-operation) and not one half of a fork
// pair (a fork and its parent share their first uuid). The choice is the
// first such file in path order, so it is stable for a corpus.
func appendTarget(projectsDir string) (string, error) {
	sessions, err := filepath.Glob(filepath.Join(projectsDir, "*", "*.jsonl"))
	if err != nil {
		return "", fmt.Errorf("list sessions: %w", err)
	}
	slices.Sort(sessions)
	firstUUID := map[string]string{}
	uses := map[string]int{}
	for _, path := range sessions {
		if strings.HasPrefix(filepath.Base(path), "agent-") {
			continue
		}
		uuid, headless, err := sessionOpening(path)
		if err != nil {
			return "", err
		}
		if headless || uuid == "" {
			continue
		}
		firstUUID[path] = uuid
		uses[uuid]++
	}
	for _, path := range sessions {
		if uuid, ok := firstUUID[path]; ok && uses[uuid] == 1 {
			return path, nil
		}
	}
	return "", fmt.Errorf("no ordinary session transcript under %s", projectsDir)
}

// sessionOpening reads a transcript's first records: the uuid of the
// first threaded record and whether it is a headless run.
func sessionOpening(path string) (uuid string, headless bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, errpath.Wrap("open", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := 0; sc.Scan() && n < 50; n++ {
		var rec struct {
			Type      string `json:"type"`
			Operation string `json:"operation"`
			UUID      string `json:"uuid"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		if n == 0 && rec.Type == "queue-operation" {
			return "", true, nil
		}
		if rec.UUID != "" {
			return rec.UUID, false, nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", false, errpath.Wrap("read", path, err)
	}
	return "", false, nil
}

// dirBytes is the apparent size of the files under dir.
func dirBytes(dir string) (int64, error) {
	var total int64
	var seen []fs.FileInfo // a file with two names (a hard link) counts once
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if slices.ContainsFunc(seen, func(o fs.FileInfo) bool { return os.SameFile(o, info) }) {
			return nil
		}
		seen = append(seen, info)
		total += info.Size()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("size of %s: %w", dir, err)
	}
	return total, nil
}
