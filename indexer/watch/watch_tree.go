package watch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/fsnotify/fsnotify"

	"github.com/recall-dev/recall/transcript"
)

// handle reacts to one event and reports whether it calls for a run. Only
// transcripts (.jsonl), new folders and folders that went away matter;
// everything else (meta.json files, attribute changes) is noise.
func (w *Watcher) handle(ev fsnotify.Event) bool {
	if ev.Op != fsnotify.Chmod && w.agentEvent(ev.Name) {
		return true
	}
	if !w.underRoot(ev.Name) || ev.Op == fsnotify.Chmod {
		return false
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		if w.forget(ev.Name) {
			return true
		}
	}
	if strings.HasSuffix(ev.Name, ".jsonl") {
		return true
	}
	if ev.Has(fsnotify.Create) && w.mayHoldTranscripts(ev.Name) {
		// The folder may already hold files and folders made before the
		// watch was added; watchTree walks them and the run reads them.
		var t watchTally
		w.watchTree(ev.Name, &t)
		w.report(t.err(ev.Name))
		return true
	}
	return false
}

// underRoot reports whether path is a transcript root or lies below one.
// Events from a missing root's parent (see watchRoot) fail this unless they
// are about the root itself.
func (w *Watcher) underRoot(path string) bool {
	for _, r := range w.roots {
		if path == r || strings.HasPrefix(path, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// mayHoldTranscripts reports whether path is a folder worth watching.
func (w *Watcher) mayHoldTranscripts(path string) bool {
	info, err := os.Lstat(path)
	if err == nil && info.Mode()&os.ModeSymlink != 0 {
		return !skippedDir(filepath.Base(path)) && transcript.FollowedFolder(w.opts.Sources, filepath.Dir(path), filepath.Base(path))
	}
	return err == nil && info.IsDir() && !skippedDir(filepath.Base(path))
}

// skippedDir names the folders that never hold transcripts, as discover
// skips them: memory/ holds notes, tool-results/ holds large tool outputs.
func skippedDir(name string) bool {
	return name == "memory" || name == "tool-results"
}

// watchRoots (re)watches every root and the folders below it. Adding a
// watch that exists is a cheap no-op, so rescans call this freely.
func (w *Watcher) watchRoots() {
	for _, r := range w.roots {
		w.report(w.watchRoot(r))
	}
	w.watchAgents()
}

// watchRoot watches a root's tree or, if the root does not exist yet (Claude
// Code makes ~/.claude/projects on first use), its parent, so the root's
// creation arrives as an event. If the parent is missing too, the backstop
// rescan tries again.
func (w *Watcher) watchRoot(root string) error {
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
		parent := filepath.Dir(root)
		if err := w.fsw.Add(parent); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("watch %s: %w", parent, err)
		}
		return nil
	}
	var t watchTally
	w.watchTree(root, &t)
	return t.err(root)
}

// watchTree watches dir and every folder below it that may hold
// transcripts: project folders, <session>/, <session>/subagents/ and
// anything deeper under it. Symlinked folders are followed as discovery
// follows them (transcript.FollowedFolder), each folder once per walk.
func (w *Watcher) watchTree(dir string, t *watchTally) {
	if info, err := os.Stat(dir); err == nil {
		st, _ := info.Sys().(*syscall.Stat_t)
		if st != nil {
			id := [2]uint64{uint64(st.Dev), st.Ino}
			if t.walked[id] {
				return // a link loop, or a folder reached twice
			}
			if t.walked == nil {
				t.walked = map[[2]uint64]bool{}
			}
			t.walked[id] = true
		}
	}
	if err := w.fsw.Add(dir); err != nil {
		t.note(err)
		return
	}
	w.dirs[dir] = true
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.note(err)
		return
	}
	for _, e := range entries {
		if skippedDir(e.Name()) {
			continue
		}
		if e.IsDir() || e.Type()&os.ModeSymlink != 0 && transcript.FollowedFolder(w.opts.Sources, dir, e.Name()) {
			w.watchTree(filepath.Join(dir, e.Name()), t)
		}
	}
}

// forget drops the watches on a folder that was removed or moved away, and
// on every folder below it, and reports whether path was a watched folder.
// inotify keeps watching a moved folder's subfolders under their old names;
// dropping them lets the Create event at the new place watch them under the
// right ones. A removed root is watched for again via its parent.
func (w *Watcher) forget(path string) bool {
	if !w.dirs[path] {
		return false
	}
	prefix := path + string(filepath.Separator)
	for d := range w.dirs {
		if d == path || strings.HasPrefix(d, prefix) {
			_ = w.fsw.Remove(d) // fails when inotify already dropped it; either way it is gone
			delete(w.dirs, d)
		}
	}
	if w.isRoot(path) {
		w.report(w.watchRoot(path))
	}
	return true
}

func (w *Watcher) isRoot(path string) bool {
	for _, r := range w.roots {
		if path == r {
			return true
		}
	}
	return false
}

func (w *Watcher) report(err error) {
	if err != nil {
		w.opts.OnError(err)
	}
}

// watchTally counts folders that could not be watched during one walk, so a
// tree that exhausts the inotify limit yields one message, not thousands.
// Folders that vanished mid-walk are not failures: there is nothing to
// watch.
type watchTally struct {
	failed int
	first  error
	walked map[[2]uint64]bool // folders walked, by device and inode
}

func (t *watchTally) note(err error) {
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if t.failed == 0 {
		t.first = err
	}
	t.failed++
}

func (t *watchTally) err(top string) error {
	if t.failed == 0 {
		return nil
	}
	hint := ""
	if errors.Is(t.first, syscall.ENOSPC) {
		hint = "; raise the sysctl fs.inotify.max_user_watches"
	}
	return fmt.Errorf("watch %s: %d folders not watched, changes there wait for the next rescan%s: %w", top, t.failed, hint, t.first)
}
