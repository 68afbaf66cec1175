package transcript

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/recall-dev/recall/internal/errpath"
	"github.com/recall-dev/recall/internal/parallel"
	"github.com/recall-dev/recall/record"

	"golang.org/x/sys/unix"
)

// Transcript is one JSONL file found under a source root.
type Transcript struct {
	Path    string
	Kind    string // KindMain, KindSubagent or KindAgentOld
	Session string // known from the path for main and subagent files
	Agent   string // subagent id for subagent files
	Stat    FileStat
	// BornNs is when the file was created (Unix nanoseconds), as
	// discovery read it; 0 when it did not (BirthNs then).
	BornNs int64
}

// FileStat is what the indexer needs of a stat: enough to tell an
// unchanged, grown, shrunk or replaced transcript apart.
type FileStat struct {
	Size    int64
	MtimeNs int64
	Dev     uint64
	Ino     uint64
}

// Discover lists every transcript under the roots, sorted by path so that a
// session's main file comes before its subagents (".jsonl" sorts before
// "/") and every run processes files in the same order.
//
// A root is a projects folder (~/.claude/projects): one folder per project.
// A root that holds transcripts directly is taken as a single project folder,
// so `--source ~/.claude/projects/-home-me-app` works too.
//
// This runs before every search, so it is built for many files: project
// folders are scanned on all cores, and each file is stat'ed relative to
// its open directory (fstatat), which spares the kernel the path walk.
//
// Symbolic links to folders and transcripts are followed (links.go).
func Discover(roots []string, warn func(string)) []Transcript {
	j := judgeOf(roots)
	var projects []string
	for _, root := range roots {
		projects = append(projects, projectDirs(root, j, warn)...)
	}
	out := scanProjects(projects, j, warn)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return dedupe(out)
}

// projectDirs lists the project folders of a root (or the root itself if
// it holds transcripts), linked ones included.
func projectDirs(root string, j *linkJudge, warn func(string)) []string {
	entries, err := os.ReadDir(root)
	if err != nil {
		if !os.IsNotExist(err) {
			warn(fmt.Sprintf("read source: %v", err)) // a *fs.PathError: it names root
		}
		return nil
	}
	if holdsTranscripts(root, entries, j) {
		return []string{root}
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() || isLink(e.Type()) && j.follow(root, e.Name(), true, warn) == entryDir {
			dirs = append(dirs, filepath.Join(root, e.Name()))
		}
	}
	return dirs
}

func holdsTranscripts(root string, entries []os.DirEntry, j *linkJudge) bool {
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		if e.Type().IsRegular() || isLink(e.Type()) && j.follow(root, e.Name(), false, func(string) {}) == entryFile {
			return true
		}
	}
	return false
}

// scanProjects scans project folders in parallel; warnings are collected
// and reported in order afterwards, since warn is not safe for concurrent
// use.
func scanProjects(dirs []string, j *linkJudge, warn func(string)) []Transcript {
	results := make([][]Transcript, len(dirs))
	warnings := make([][]string, len(dirs))
	parallel.Each(len(dirs), func(i int) {
		results[i] = discoverProject(dirs[i], j, func(s string) { warnings[i] = append(warnings[i], s) })
	})
	var out []Transcript
	for i := range dirs {
		for _, w := range warnings[i] {
			warn(w)
		}
		out = append(out, results[i]...)
	}
	return out
}

// discoverProject finds <session>.jsonl, the older project-level
// agent-<id>.jsonl, and <session>/subagents/**/agent-<id>.jsonl. Folders
// that are not transcripts (tool-results, memory) are never entered.
func discoverProject(dir string, j *linkJudge, warn func(string)) []Transcript {
	var out []Transcript
	walking := map[folderID]bool{}
	if _, ok := enter(walking, dir, warn); !ok {
		return nil
	}
	err := eachEntry(dir, func(dirfd int, name string, typ entryType) {
		if typ == entryLink {
			typ = j.follow(dir, name, false, warn)
		}
		switch {
		case typ == entryFile && strings.HasSuffix(name, ".jsonl"):
			out = appendTranscript(out, dirfd, dir, name, "", warn)
		case typ == entryDir && name != "memory":
			out = append(out, discoverSubagents(filepath.Join(dir, name, "subagents"), record.SessionIDOf(name), j, walking, warn)...)
		case typ == entrySpecial && strings.HasSuffix(name, ".jsonl"):
			warnSpecial(dirfd, dir, name, warn)
		}
	})
	if err != nil {
		warn(errpath.Wrap("read project", dir, err).Error())
	}
	return out
}

// discoverSubagents walks a session's subagents folder (and the folders
// below it, where workflow agents live) for agent-<id>.jsonl.
//
// walking holds the folders being walked, for a link loop to be seen.
func discoverSubagents(dir, session string, j *linkJudge, walking map[folderID]bool, warn func(string)) []Transcript {
	var out []Transcript
	id, ok := enter(walking, dir, warn)
	if !ok {
		return nil
	}
	defer delete(walking, id)
	err := eachEntry(dir, func(dirfd int, name string, typ entryType) {
		if typ == entryLink {
			typ = j.follow(dir, name, false, warn)
		}
		switch {
		case typ == entryFile && strings.HasPrefix(name, "agent-") && strings.HasSuffix(name, ".jsonl"):
			out = appendTranscript(out, dirfd, dir, name, session, warn)
		case typ == entryDir:
			out = append(out, discoverSubagents(filepath.Join(dir, name), session, j, walking, warn)...)
		case typ == entrySpecial && strings.HasSuffix(name, ".jsonl"):
			warnSpecial(dirfd, dir, name, warn)
		}
	})
	if err != nil && !os.IsNotExist(err) {
		warn(errpath.Wrap("read", dir, err).Error())
	}
	return out
}

// entryType is what discovery needs to know of a directory entry.
type entryType uint8

const (
	entryOther   entryType = iota // skipped
	entryFile                     // a regular file
	entryDir                      // a folder
	entrySpecial                  // a FIFO, socket or device: skipped, never opened
	entryLink                     // a symbolic link: linkJudge.follow says what to make of it
)

// warnSpecial says that a FIFO, socket or device named like a transcript
// is skipped.
func warnSpecial(dirfd int, dir, name string, warn func(string)) {
	var st unix.Stat_t
	kind := "not a regular file"
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		kind = kindOf(uint32(st.Mode))
	}
	warn(fmt.Sprintf("skipped %s: %s, not a regular file", filepath.Join(dir, name), kind))
}

// appendTranscript classifies one .jsonl by its name and place and stats
// it relative to its directory.
func appendTranscript(out []Transcript, dirfd int, dir, name, session string, warn func(string)) []Transcript {
	path := filepath.Join(dir, name)
	st, err := statAt(dirfd, name)
	if err != nil {
		warn(fmt.Sprintf("stat %s: %v", path, err))
		return out
	}
	if st.mode&unix.S_IFMT != unix.S_IFREG {
		warn(fmt.Sprintf("skipped %s: %s, not a regular file", path, kindOf(st.mode)))
		return out
	}
	t := classify(path)
	if session != "" {
		t.Session = session
	}
	t.Stat, t.BornNs = st.stat, st.bornNs
	return append(out, t)
}

// entryStat is what discovery reads of a directory entry.
type entryStat struct {
	mode   uint32
	stat   FileStat
	bornNs int64 // 0 when unknown
}

// fileStatOf is the FileStat of a stat(2) result.
func fileStatOf(st *unix.Stat_t) FileStat {
	return FileStat{Size: st.Size, MtimeNs: st.Mtim.Nano(), Dev: uint64(st.Dev), Ino: st.Ino}
}

func classify(path string) Transcript {
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	inSubagents := filepath.Base(filepath.Dir(path)) == "subagents" ||
		strings.Contains(filepath.ToSlash(path), "/subagents/")
	switch {
	case strings.HasPrefix(name, "agent-") && inSubagents:
		return Transcript{Path: path, Kind: record.KindSubagent, Agent: strings.TrimPrefix(name, "agent-")}
	case strings.HasPrefix(name, "agent-"):
		return Transcript{Path: path, Kind: record.KindAgentOld, Agent: strings.TrimPrefix(name, "agent-")}
	default:
		return Transcript{Path: path, Kind: record.KindMain, Session: record.SessionIDOf(name)}
	}
}

// StatFile stats one transcript by path. Anything but a regular file is
// ErrNotRegular: no transcript to read.
func StatFile(path string) (FileStat, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return FileStat{}, fmt.Errorf("stat %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return FileStat{}, notRegular(path, uint32(st.Mode))
	}
	return fileStatOf(&st), nil
}
