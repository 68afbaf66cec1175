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
}

// corpusFormat changes whenever the generator's output changes, so stale
// corpora are regenerated rather than silently reused.
const corpusFormat = 1

const corpusInfoFile = "recall-bench-corpus.json"

// ensureCorpus returns a corpus of the given size and seed under dir,
// generating it unless a matching one is already there.
func ensureCorpus(dir string, size int64, seed uint64, log io.Writer) (corpusInfo, error) {
	want := corpusInfo{Format: corpusFormat, Seed: seed, Size: size, GoVersion: runtime.Version()}
	if have, err := readCorpusInfo(dir); err == nil && sameCorpus(have, want) {
		fmt.Fprintf(log, "recall-bench: reusing corpus %s (%s)\n", dir, benchgen.FormatSize(have.Bytes))
		return have, nil
	}
	// The marker goes first so an interrupted generation is never reused.
	if err := os.Remove(filepath.Join(dir, corpusInfoFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return corpusInfo{}, fmt.Errorf("remove stale corpus marker: %w", err)
	}
	fmt.Fprintf(log, "recall-bench: generating %s corpus in %s\n", benchgen.FormatSize(size), dir)
	sum, err := benchgen.Generate(benchgen.Options{Dir: dir, Size: size, Seed: seed, Overwrite: true, Log: log})
	if err != nil {
		return corpusInfo{}, fmt.Errorf("generate corpus: %w", err)
	}
	fmt.Fprintf(log, "recall-bench gen: %s\n", sum)
	info := want
	info.Files, info.Sessions, info.Subagents = sum.Files, sum.Sessions, sum.Subagents
	info.Forks, info.Headless, info.Projects = sum.Forks, sum.Headless, sum.Projects
	info.Bytes, info.HumanText, info.TextOrigin = sum.Bytes, sum.HumanTextBytes, sum.TextOrigin
	info.GenerateSec = fmt.Sprintf("%.1f", sum.Elapsed.Seconds())
	return info, writeCorpusInfo(dir, info)
}

func sameCorpus(have, want corpusInfo) bool {
	return have.Format == want.Format && have.Seed == want.Seed && have.Size == want.Size && have.GoVersion == want.GoVersion
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
