package opencode

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/transcript"
)

// maxFileBytes bounds one file of the JSON storage: a message or part is
// kilobytes, a tool part with a large output megabytes; more is skipped
// as too long rather than held.
const maxFileBytes = 16 << 20

// readLegacy reads one session of the JSON storage whole: its session
// file (w.T.Path, storage/session/<projectID>/<sessionID>.json), its
// messages (storage/message/<sessionID>/) and their parts
// (storage/part/<messageID>/). It returns cursor 0: a session file
// changed is read again whole, its rows read before left out as copies.
//
// A child session's rows are its root session's; the root is found by
// the parents' session files in the same project folder.
func readLegacy(w transcript.Work, b *transcript.Builder, now int64) (string, string, int64, error) {
	path := w.T.Path
	projectDir := filepath.Dir(path)
	storage := filepath.Dir(filepath.Dir(projectDir))
	s, err := readSessionFile(path)
	if err != nil {
		return "", "", 0, err
	}
	sessions := map[string]*session{s.id: s}
	for parent := s.parent; parent != "" && sessions[parent] == nil && len(sessions) < maxDepth; {
		p, err := readSessionFile(filepath.Join(projectDir, parent+".json"))
		if err != nil {
			break // gone: the parent's id is the root
		}
		sessions[p.id] = p
		parent = p.parent
	}
	worktrees := map[string]string{}
	var project projectInfo
	if s.project != "" && readJSONFile(filepath.Join(storage, "project", s.project+".json"), &project) == nil {
		worktrees[s.project] = project.Worktree
	}
	msgs := readMessages(b, storage, s.id)
	e := &emitter{b: b, sessions: sessions, worktrees: worktrees}
	s.noteCwd(msgs)
	e.title(s)
	for i := range msgs {
		if skip, _ := judge(&msgs[i], i == len(msgs)-1, now); !skip {
			e.message(s, &msgs[i])
		}
	}
	return e.root(s), e.project(s), 0, nil
}

// readSessionFile reads a session file; its id is its name's when the
// file names none.
func readSessionFile(path string) (*session, error) {
	var info sessionInfo
	if err := readJSONFile(path, &info); err != nil {
		return nil, err
	}
	id := info.ID
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(path), ".json")
	}
	project := info.ProjectID
	if project == "" {
		project = filepath.Base(filepath.Dir(path))
	}
	return &session{id: id, parent: info.ParentID, project: project, directory: info.Directory, title: info.Title,
		created: int64(info.Time.Created), updated: int64(info.Time.Updated)}, nil
}

// readMessages reads the messages of session id with their parts, in
// order (by creation, then id). A file that is not a message or part
// is counted as a bad line, one too long as too long.
func readMessages(b *transcript.Builder, storage, id string) []message {
	var out []message
	for _, f := range jsonFiles(filepath.Join(storage, "message", id)) {
		var m message
		data, err := readFile(f)
		switch {
		case errors.Is(err, errTooLong):
			b.Drop(filter.TooLong)
			continue
		case err != nil:
			continue // vanished since listed
		}
		m.info, err = decodeMessage(data)
		m.bad = err != nil
		m.id = m.info.ID
		if m.id == "" {
			m.id = strings.TrimSuffix(filepath.Base(f), ".json")
		}
		m.parts = readParts(b, storage, m.id)
		out = append(out, m)
	}
	slices.SortStableFunc(out, func(a, b message) int {
		return cmp.Or(cmp.Compare(a.info.Time.Created, b.info.Time.Created), strings.Compare(a.id, b.id))
	})
	n := 0 // a part's line is its place among the session's parts
	for i := range out {
		out[i].line = i + 1
		for j := range out[i].parts {
			n++
			out[i].parts[j].line = n
		}
	}
	return out
}

// readParts reads the parts of message id, in order (by id).
func readParts(b *transcript.Builder, storage, id string) []part {
	var out []part
	for _, f := range jsonFiles(filepath.Join(storage, "part", id)) {
		data, err := readFile(f)
		switch {
		case errors.Is(err, errTooLong):
			b.Drop(filter.TooLong)
			continue
		case err != nil:
			continue
		}
		var p part
		p.data, err = decodePart(data)
		p.bad = err != nil
		p.id = p.data.ID
		if p.id == "" {
			p.id = strings.TrimSuffix(filepath.Base(f), ".json")
		}
		out = append(out, p)
	}
	slices.SortStableFunc(out, func(a, b part) int { return strings.Compare(a.id, b.id) })
	return out
}

// jsonFiles lists the .json files of dir, sorted by name; none when dir
// is missing.
func jsonFiles(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") && !e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// errTooLong is the error for a file over maxFileBytes.
var errTooLong = errors.New("over 16 MiB")

// readFile reads a regular file of at most maxFileBytes.
func readFile(path string) ([]byte, error) {
	f, err := transcript.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("%s: %w", path, errTooLong)
	}
	return data, nil
}

// readJSONFile decodes the JSON object in the file at path into v.
func readJSONFile(path string, v any) error {
	data, err := readFile(path)
	if err != nil {
		return err
	}
	if err := decodeObject(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
