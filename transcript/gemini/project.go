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
// whose hash it is. Files are read once per read of a session, lazily.
type projects struct {
	slugDir  string // the project's folder, "" when the file is not in Gemini CLI's layout
	registry string // projects.json, "" when there is none to look in

	loaded bool
	paths  map[string]string // path -> slug, from projects.json
}

// projectsOf locates the project's folder of the session file at path
// (a subagent's is one folder deeper).
func projectsOf(path string, subagent bool) *projects {
	chats := filepath.Dir(path)
	if subagent {
		chats = filepath.Dir(chats)
	}
	if filepath.Base(chats) != "chats" {
		return &projects{}
	}
	p := &projects{slugDir: filepath.Dir(chats)}
	if tmp := filepath.Dir(p.slugDir); filepath.Base(tmp) == "tmp" {
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
	if s == "" || !filepath.IsAbs(s) || strings.ContainsAny(s, "\n\r\x00") {
		return ""
	}
	return s
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

// byHash is the path of projects.json whose SHA-256 is hash (Gemini CLI's
// getProjectHash), "" when hash is none of theirs.
func (p *projects) byHash(hash string) string {
	if len(hash) != sha256.Size*2 {
		return ""
	}
	p.load()
	for path := range p.paths {
		sum := sha256.Sum256([]byte(path))
		if hex.EncodeToString(sum[:]) == strings.ToLower(hash) {
			return path
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
		if json.Unmarshal(raw, &slug) == nil && filepath.IsAbs(path) {
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
