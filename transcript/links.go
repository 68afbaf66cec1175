package transcript

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Symbolic links. Claude Code users link ~/.claude, or a project's folder
// of transcripts, to another disk or a dotfiles repository: discovery
// follows a link to a folder or to a transcript, so what it holds is
// indexed (issue 23: such folders and transcripts were skipped without a
// word). Each real file is indexed once, under one path:
//
//   - a link whose target lies under a source root (after resolving the
//     roots' own links) is an alias of what discovery finds there
//     directly: it is skipped, silently, whatever sorts first;
//   - a link to a folder already being walked (a loop) is skipped with a
//     warning, as is a link that resolves to nothing or to neither a
//     folder nor a regular file (a FIFO is never opened);
//   - a sweep that reaches one file by two links (both outside the
//     roots) keeps the first path.
//
// The root itself may be a link (~/.claude → a dotfiles folder): it is
// read where it points, under the path given.

// linkJudge knows the real paths of the source roots.
type linkJudge struct {
	roots []string // real, cleaned
}

// judges caches one linkJudge per set of roots: resolving the roots'
// links costs a few system calls per path component, and the quick check
// asks for each folder it lists.
var judges sync.Map // strings.Join(roots, "\x00") → *linkJudge

func judgeOf(roots []string) *linkJudge {
	key := strings.Join(roots, "\x00")
	if j, ok := judges.Load(key); ok {
		return j.(*linkJudge)
	}
	j := &linkJudge{}
	for _, r := range roots {
		if real, err := filepath.EvalSymlinks(r); err == nil {
			j.roots = append(j.roots, filepath.Clean(real))
		} else if abs, err := filepath.Abs(r); err == nil {
			j.roots = append(j.roots, filepath.Clean(abs))
		}
	}
	judges.Store(key, j)
	return j
}

// under reports whether real lies under (or is) a source root.
func (j *linkJudge) under(real string) bool {
	return slices.ContainsFunc(j.roots, func(r string) bool {
		return real == r || strings.HasPrefix(real, r+string(filepath.Separator)) || r == string(filepath.Separator)
	})
}

// follow resolves the link name in dir: entryDir, entryFile or
// entrySpecial for what it points to, entryOther for an alias (skipped
// silently) or a link to nothing (skipped; warned when the name is a
// transcript's, or always, with report).
func (j *linkJudge) follow(dir, name string, report bool, warn func(string)) entryType {
	path := filepath.Join(dir, name)
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		if report || strings.HasSuffix(name, ".jsonl") {
			warn(fmt.Sprintf("skipped %s: a symbolic link to nothing (%v)", path, err))
		}
		return entryOther
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil || j.under(filepath.Clean(real)) {
		return entryOther // an alias: found directly under its root
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return entryDir
	case unix.S_IFREG:
		return entryFile
	}
	return entrySpecial
}

// folderID identifies a folder, for loop detection.
type folderID struct{ dev, ino uint64 }

// enter adds dir to the folders being walked; false (and a warning) if it
// is one of them already: a link made a loop.
func enter(walking map[folderID]bool, dir string, warn func(string)) (folderID, bool) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return folderID{}, true // the listing says why
	}
	id := folderID{uint64(st.Dev), st.Ino}
	if walking[id] {
		warn(fmt.Sprintf("skipped %s: a symbolic link loop (the folder is already being read)", dir))
		return id, false
	}
	walking[id] = true
	return id, true
}

// dedupe keeps one path of each real file among transcripts sorted by
// path, the first.
func dedupe(ts []Transcript) []Transcript {
	seen := make(map[folderID]bool, len(ts))
	out := ts[:0]
	for _, t := range ts {
		id := folderID{t.Stat.Dev, t.Stat.Ino}
		if t.Stat.Ino != 0 && seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, t)
	}
	return out
}

// isLink reports whether a directory entry type is a symbolic link.
func isLink(t os.FileMode) bool { return t&os.ModeSymlink != 0 }

// FollowedFolder reports whether the entry name of dir is a symbolic link
// that discovery follows to a folder (one outside every source root): the
// watcher watches what discovery reads.
func FollowedFolder(roots []string, dir, name string) bool {
	return judgeOf(roots).follow(dir, name, false, func(string) {}) == entryDir
}
