package opencode

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// Discover lists OpenCode's session stores under root: OpenCode's data
// folder (its databases, opencode.db and opencode-<channel>.db, and the
// sessions of its JSON storage under storage/), a storage folder itself,
// or a database file (OPENCODE_DB, or one a user names). Sorted by path.
func Discover(root string, warn func(string)) []transcript.Transcript {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	fi, err := os.Stat(root)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			warn(fmt.Sprintf("read source: %v", err))
		}
		return nil
	}
	var out []transcript.Transcript
	if !fi.IsDir() {
		if t, ok := dbTranscript(root, warn); ok {
			out = append(out, t)
		}
		return out
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		warn(fmt.Sprintf("read source: %v", err))
		return nil
	}
	if isDataFolder(root, entries) {
		out = discoverData(root, entries, warn)
	} else {
		for _, dir := range nestedDataFolders(root, warn) {
			entries, err := os.ReadDir(dir)
			if err != nil {
				warn(fmt.Sprintf("read source: %v", err))
				continue
			}
			out = append(out, discoverData(dir, entries, warn)...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// discoverData lists the databases and the JSON storage's sessions of
// the data folder root, whose entries are given.
func discoverData(root string, entries []os.DirEntry, warn func(string)) []transcript.Transcript {
	var out []transcript.Transcript
	for _, e := range entries {
		if isDBName(e.Name()) {
			if t, ok := dbTranscript(filepath.Join(root, e.Name()), warn); ok {
				out = append(out, t)
			}
		}
	}
	return append(out, legacySessions(storageDir(root), warn)...)
}

// isDataFolder reports whether root, whose entries are given, is one of
// OpenCode's data folders (a database in it, or a JSON storage) or a
// storage folder itself.
func isDataFolder(root string, entries []os.DirEntry) bool {
	for _, e := range entries {
		if isDBName(e.Name()) {
			return true
		}
	}
	return storageDir(root) != ""
}

// maxNestedDepth and maxNestedFolders bound the look below a root that
// is no data folder of OpenCode's: data copied from several people or
// machines keeps each data folder a few levels down
// (<who>/.local/share/opencode is four).
const (
	maxNestedDepth   = 5
	maxNestedFolders = 512
)

// nestedDataFolders lists the data folders below root (isDataFolder), to
// maxNestedDepth and through maxNestedFolders folders, not looking into a
// data folder, a repository's .git or a dependency tree.
func nestedDataFolders(root string, warn func(string)) []string {
	return transcript.NestedFolders(root, maxNestedDepth, maxNestedFolders, func(string) bool { return true }, isDataFolder, warn)
}

// isDBName reports whether name is one of OpenCode's databases in its
// data folder: opencode.db, or opencode-<channel>.db.
func isDBName(name string) bool {
	return name == "opencode.db" || strings.HasPrefix(name, "opencode-") && strings.HasSuffix(name, ".db")
}

// storageDir is the JSON storage of data folder root: root/storage, or
// root itself when it is one (it holds session/).
func storageDir(root string) string {
	if fi, err := os.Stat(filepath.Join(root, "storage")); err == nil && fi.IsDir() {
		return filepath.Join(root, "storage")
	}
	if fi, err := os.Stat(filepath.Join(root, "session")); err == nil && fi.IsDir() {
		return root
	}
	return ""
}

// dbTranscript is the Transcript of the database at path. A database in
// WAL mode (OpenCode's) takes its writes into path-wal first and into
// the file itself only at a checkpoint, so its size and mtime are the
// file's and its log's together: any write shows. Its identity is the
// file's.
func dbTranscript(path string, warn func(string)) (transcript.Transcript, bool) {
	st, ok := statDB(path, warn)
	if !ok {
		return transcript.Transcript{}, false
	}
	return transcript.Transcript{Path: path, Kind: record.KindOf(record.AgentOpenCode, false), Stat: st}, true
}

// statDB is the stat of the database at path with its write-ahead log.
// An empty log holds no change, and is left out: SQLite creates one
// (and the -shm index beside it) when recall opens a database whose log
// is gone, and that log's mtime would have the next run read the
// database again, and again after each read.
func statDB(path string, warn func(string)) (transcript.FileStat, bool) {
	st, err := transcript.StatFile(path)
	if err != nil {
		if errors.Is(err, transcript.ErrNotRegular) {
			warn(fmt.Sprintf("skipped %s: not a regular file", path))
		}
		return st, false // vanished: nothing to read
	}
	if wal, err := transcript.StatFile(path + "-wal"); err == nil && wal.Size > 0 {
		st.Size += wal.Size
		st.MtimeNs = max(st.MtimeNs, wal.MtimeNs)
	}
	return st, true
}

// legacySessions lists the session files of the JSON storage at storage
// (none when it is ""): storage/session/<projectID>/<sessionID>.json.
func legacySessions(storage string, warn func(string)) []transcript.Transcript {
	if storage == "" {
		return nil
	}
	dir := filepath.Join(storage, "session")
	projects, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			warn(fmt.Sprintf("read source: %v", err))
		}
		return nil
	}
	var out []transcript.Transcript
	for _, p := range projects {
		pdir := filepath.Join(dir, p.Name())
		if fi, err := os.Stat(pdir); err != nil || !fi.IsDir() {
			continue // a file, or a link to one
		}
		files, err := os.ReadDir(pdir)
		if err != nil {
			warn(fmt.Sprintf("read source: %v", err))
			continue
		}
		for _, f := range files {
			name := f.Name()
			if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
				continue // OpenCode's temporary files are .oc-<name>.<pid>.<time>.tmp
			}
			path := filepath.Join(pdir, name)
			st, err := transcript.StatFile(path)
			if err != nil {
				if errors.Is(err, transcript.ErrNotRegular) {
					warn(fmt.Sprintf("skipped %s: not a regular file", path))
				}
				continue
			}
			out = append(out, transcript.Transcript{Path: path, Kind: record.KindOf(record.AgentOpenCode, false),
				Session: strings.TrimSuffix(name, ".json"), Stat: st})
		}
	}
	return out
}

// WatchPaths are what changes when OpenCode writes a session under root:
// each database and its write-ahead log (a write lands in the log, a
// checkpoint in the file), and the JSON storage's session folder and its
// project folders (a session file is written by a rename into one). The
// data folder itself is not watched: OpenCode makes and removes files in
// it (the log's shared memory, its own logs) without a session changing.
// A new channel's database is found by the next full sweep.
func WatchPaths(root string) []string {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	if fi, err := os.Stat(root); err == nil && !fi.IsDir() {
		return []string{root, root + "-wal"}
	}
	entries, err := os.ReadDir(root)
	if err == nil && !isDataFolder(root, entries) {
		if nested := nestedDataFolders(root, func(string) {}); len(nested) > 0 {
			var out []string
			for _, dir := range nested {
				sub, _ := os.ReadDir(dir)
				out = append(out, dataWatchPaths(dir, sub)...)
			}
			return out
		}
	}
	return dataWatchPaths(root, entries)
}

// dataWatchPaths is WatchPaths of the data folder root, whose entries
// are given (none when it could not be listed).
func dataWatchPaths(root string, entries []os.DirEntry) []string {
	dbs := []string{"opencode.db"}
	for _, e := range entries {
		if isDBName(e.Name()) && e.Name() != "opencode.db" {
			dbs = append(dbs, e.Name())
		}
	}
	var out []string
	for _, name := range dbs {
		out = append(out, filepath.Join(root, name), filepath.Join(root, name)+"-wal")
	}
	if storage := storageDir(root); storage != "" {
		dir := filepath.Join(storage, "session")
		out = append(out, dir)
		if projects, err := os.ReadDir(dir); err == nil {
			for _, p := range projects {
				if p.IsDir() {
					out = append(out, filepath.Join(dir, p.Name()))
				}
			}
		}
	}
	return out
}
