package gemini

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/recall-dev/recall/transcript"
)

// projectRootFile is the file in a project's folder under tmp/ that holds
// the project's path (PROJECT_ROOT_FILE in projectRegistry.ts).
const projectRootFile = ".project_root"

// Bounds on the small files read to find a session's project: a path is
// short, and a registry of every project a user has is kilobytes.
const (
	maxRootFileBytes = 64 << 10
	maxRegistryBytes = 16 << 20
)

// projects finds a session's project path from where its file is: the
// project's folder is the chats folder's parent (tmp/<slug>), which
// holds the path in .project_root; failing that, projects.json beside
// tmp/ maps paths to slugs, and a folder of an older version named by
// the SHA-256 of the path (also the metadata's projectHash) is the path
// whose hash it is, among those projects.json registers or else those the
// sessions name (byFiles). Files are read once per read of a session,
// lazily.
type projects struct {
	file     string // the session's file
	slugDir  string // the project's folder, "" when the file is not in Gemini CLI's layout
	registry string // projects.json, "" when there is none to look in

	loaded     bool
	paths      map[string]string // path -> slug, from projects.json
	triedFiles bool              // byFiles was run: it reads files, so once a read
}

// projectsOf locates the project's folder of the session file at path
// (a subagent's is one folder deeper).
func projectsOf(path string, subagent bool) *projects {
	chats := filepath.Dir(path)
	if subagent {
		chats = filepath.Dir(chats)
	}
	if filepath.Base(chats) != "chats" {
		return &projects{file: path}
	}
	return projectsOfFolder(path, filepath.Dir(chats))
}

// projectsOfFolder locates the project whose folder (under tmp) is
// slugDir, for the file at path in it (its prompt log, logs.json).
func projectsOfFolder(path, slugDir string) *projects {
	p := &projects{file: path, slugDir: slugDir}
	if tmp := filepath.Dir(slugDir); filepath.Base(tmp) == "tmp" {
		p.registry = filepath.Join(filepath.Dir(tmp), "projects.json")
	}
	return p
}

// fromPath is the project's path as the session file's place tells it,
// "" when it does not.
func (p *projects) fromPath() string {
	if p.slugDir == "" {
		return ""
	}
	if data, err := readSmall(filepath.Join(p.slugDir, projectRootFile), maxRootFileBytes); err == nil {
		if root := cleanRoot(string(data)); root != "" {
			return root
		}
	}
	slug := filepath.Base(p.slugDir)
	if root := p.bySlug(slug); root != "" {
		return root
	}
	return p.byHash(slug)
}

// cleanRoot is the path a .project_root holds, "" when it holds no
// absolute path on one line.
func cleanRoot(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || !isAbsPath(s) || strings.ContainsAny(s, "\n\r\x00") {
		return ""
	}
	return s
}

// isAbsPath reports whether s is an absolute path on this host or a
// Windows one on any host (X:\…, X:/…, \\server\share\…): a session
// copied from Windows names its project so, and the path is kept as it
// is written.
func isAbsPath(s string) bool {
	return filepath.IsAbs(s) || isWindowsAbs(s)
}

// isWindowsAbs reports whether s is a Windows absolute path: a drive
// letter, a colon and a separator, or a UNC path \\server\share.
func isWindowsAbs(s string) bool {
	if len(s) >= 3 && s[1] == ':' && (s[2] == '\\' || s[2] == '/') {
		c := s[0] | 0x20
		return c >= 'a' && c <= 'z'
	}
	if rest, ok := strings.CutPrefix(s, `\\`); ok {
		server, share, _ := strings.Cut(rest, `\`)
		return server != "" && share != "" && !strings.HasPrefix(share, `\`)
	}
	return false
}

// hashCandidates are the spellings of path whose SHA-256 may name its
// project's folder. Gemini CLI hashes the path as the process saw it
// (C:\Users\me\dev\app), while on Windows projects.json keeps it
// lower-cased (c:\users\me\dev\app), and the original case is not
// kept anywhere. So a Windows path is also tried with its drive letter
// in the other case and with "Users" capitalized, as Windows writes its
// home folders; a folder named with any other capitals is not matched.
func hashCandidates(path string) []string {
	out := []string{path}
	if len(path) < 3 || path[1] != ':' || !isWindowsAbs(path) {
		return out
	}
	swap := string(path[0]^0x20) + path[1:]
	out = append(out, swap)
	for _, p := range []string{path, swap} {
		if rest, ok := strings.CutPrefix(p[2:], `\users\`); ok {
			out = append(out, p[:2]+`\Users\`+rest)
		} else if rest, ok := strings.CutPrefix(p[2:], "/users/"); ok {
			out = append(out, p[:2]+"/Users/"+rest)
		}
	}
	return out
}

// bySlug is the path projects.json gives slug (the least one, should it
// give several).
func (p *projects) bySlug(slug string) string {
	p.load()
	var found []string
	for path, s := range p.paths {
		if s == slug {
			found = append(found, path)
		}
	}
	if len(found) == 0 {
		return ""
	}
	sort.Strings(found)
	return found[0]
}

// byHash is the path whose SHA-256 is hash (Gemini CLI's
// getProjectHash): one projects.json registers, else one the sessions
// name (byFiles); "" when none is.
func (p *projects) byHash(hash string) string {
	if root := p.registeredByHash(hash); root != "" {
		return root
	}
	if p.triedFiles {
		return ""
	}
	p.triedFiles = true
	return p.byFiles(hash, p.file)
}

// registeredByHash is the path of projects.json whose SHA-256 is hash.
func (p *projects) registeredByHash(hash string) string {
	if len(hash) != sha256.Size*2 {
		return ""
	}
	p.load()
	hash = strings.ToLower(hash)
	paths := make([]string, 0, len(p.paths))
	for path := range p.paths {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		for _, c := range hashCandidates(path) {
			if sum := sha256.Sum256([]byte(c)); hex.EncodeToString(sum[:]) == hash {
				return path
			}
		}
	}
	return ""
}

// load reads projects.json once; a registry that is missing or not
// what Gemini CLI writes is an empty one, as Gemini CLI takes it.
func (p *projects) load() {
	if p.loaded {
		return
	}
	p.loaded = true
	if p.registry == "" {
		return
	}
	data, err := readSmall(p.registry, maxRegistryBytes)
	if err != nil {
		return
	}
	var reg struct {
		Projects map[string]json.RawMessage `json:"projects"`
	}
	if json.Unmarshal(data, &reg) != nil {
		return
	}
	p.paths = make(map[string]string, len(reg.Projects))
	for path, raw := range reg.Projects {
		var slug string
		if json.Unmarshal(raw, &slug) == nil && isAbsPath(path) {
			p.paths[path] = slug
		}
	}
}

// readSmall reads a small regular file whole, failing for one over limit
// bytes (or a FIFO, which it never waits on).
func readSmall(path string, limit int64) ([]byte, error) {
	f, err := transcript.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("read %s: over %d bytes", path, limit)
	}
	return bytes.TrimPrefix(data, []byte("\ufeff")), nil
}
