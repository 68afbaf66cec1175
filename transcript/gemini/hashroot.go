package gemini

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/recall-dev/recall/transcript"
	"github.com/recall-dev/recall/transcript/jsonscan"
)

// Gemini CLI versions of 2025 kept a project's sessions in a folder named
// by the SHA-256 of the project's path alone (tmp/<hash>/chats), and
// registered the path nowhere: no .project_root, no projects.json. The
// sessions still name the project's files: a tool is given absolute
// paths (read_file's absolute_path, write_file's file_path, a folder to
// list), and those lie in the project. So one of their ancestors is the
// project's root, and the hash tells which, exactly: a folder is never
// guessed from a path that merely looks like a project.

// Bounds on that search: it reads the session's own file first, then the
// folder's other sessions and checkpoints, at most maxHashScanBytes in
// all, and hashes at most maxHashTries distinct folders, so an old
// folder of many sessions that name no file costs a bounded read.
const (
	maxHashScanBytes = 2 << 20
	maxHashTries     = 20000
	maxPathBytes     = 4 << 10
)

// rootFinder looks for the ancestor of the paths it is shown whose
// SHA-256 is hash.
type rootFinder struct {
	hash  string
	tried map[string]struct{}
	found string
}

// byFiles is the project's path whose SHA-256 is hash, as the absolute
// paths named in the session's file (own) and in the other files of its
// project's folder tell it; "" when none does.
func (p *projects) byFiles(hash, own string) string {
	if len(hash) != sha256.Size*2 {
		return ""
	}
	f := &rootFinder{hash: strings.ToLower(hash), tried: map[string]struct{}{}}
	budget := int64(maxHashScanBytes)
	for _, path := range p.filesNaming(own) {
		data, err := readUpTo(path, budget)
		if err != nil {
			continue // a file that cannot be read names nothing
		}
		budget -= int64(len(data))
		if f.scan(data); f.found != "" || budget <= 0 || len(f.tried) >= maxHashTries {
			break
		}
	}
	return f.found
}

// filesNaming is where a project's files may be named: the session's own
// file, then the other sessions of its chats folder and the checkpoints
// of its project's folder, in name order.
func (p *projects) filesNaming(own string) []string {
	out := []string{own}
	if p.slugDir == "" {
		return out
	}
	var more []string
	for _, pattern := range []string{filepath.Join(p.slugDir, "chats", "session-*.json*"), filepath.Join(p.slugDir, "checkpoint*.json")} {
		m, _ := filepath.Glob(pattern) // a malformed pattern is none of these
		more = append(more, m...)
	}
	sort.Strings(more)
	for _, path := range more {
		if path != own {
			out = append(out, path)
		}
	}
	return out
}

// readUpTo reads at most limit bytes of the regular file at path.
func readUpTo(path string, limit int64) ([]byte, error) {
	if limit <= 0 {
		return nil, io.EOF
	}
	f, err := transcript.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// scan tries every JSON string of data that is an absolute path, or
// holds one as a word (a shell command's `cd /srv/app`). It steps from
// string to string, so a quote it meets starts one; in data that is not
// JSON it may take a string's end for a start, and what it takes then is
// no path or one whose ancestors the hash rejects.
func (f *rootFinder) scan(data []byte) {
	for i := 0; i < len(data) && f.found == "" && len(f.tried) < maxHashTries; i++ {
		if data[i] != '"' {
			continue
		}
		end, _, ok := jsonscan.ValidString(data, i)
		if !ok {
			if end = jsonscan.StringEnd(data, i); end < 0 {
				return
			}
		}
		raw := data[i:end]
		i = end - 1
		// A decoded byte comes from at most 6 raw ones (\u0041), so a
		// longer string decodes to more than maxPathBytes.
		if !ok || len(raw) > 6*maxPathBytes+2 || bytes.IndexAny(raw[1:len(raw)-1], `/\`) < 0 {
			continue
		}
		s, ok := jsonscan.DecodeString(raw) // as encoding/json decodes it
		if !ok || len(s) > maxPathBytes {
			continue
		}
		f.tryString(s)
	}
}

// tryString tries s as a path, and each of its words that is one.
func (f *rootFinder) tryString(s string) {
	if strings.ContainsAny(s, "\n\r\x00") {
		s = strings.Join(strings.Fields(s), " ")
	}
	if isAbsPath(s) {
		f.tryAncestors(s)
	}
	for _, w := range strings.Fields(s) {
		if f.found != "" {
			return
		}
		if w = strings.Trim(w, `"'(),;`); w != s && isAbsPath(w) {
			f.tryAncestors(w)
		}
	}
}

// tryAncestors hashes each folder path lies in, and path itself, in the
// spellings Gemini CLI may have hashed (hashCandidates).
func (f *rootFinder) tryAncestors(path string) {
	seps := "/"
	if isWindowsAbs(path) {
		seps = `\/`
	}
	for i := 1; i <= len(path) && f.found == ""; i++ {
		if i < len(path) && !strings.ContainsRune(seps, rune(path[i])) {
			continue
		}
		dir := path[:i]
		if _, ok := f.tried[dir]; ok || len(f.tried) >= maxHashTries {
			continue
		}
		f.tried[dir] = struct{}{}
		for _, c := range hashCandidates(dir) {
			if sum := sha256.Sum256([]byte(c)); hex.EncodeToString(sum[:]) == f.hash {
				// The spelling hashed, which every session of the folder
				// shares, not the one this path has (a tool given
				// "C:\..." where the CLI hashed "c:\...").
				f.found = c
				return
			}
		}
	}
}
