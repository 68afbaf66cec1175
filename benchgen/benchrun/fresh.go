package benchrun

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/recall-dev/recall/internal/errpath"
)

// ageTree dates every file and folder under dir back by age: a real
// transcript tree is mostly quiet (a transcript's mtime is its last
// write), while a corpus generated a minute ago is all "recently
// written", which recall's quick check treats as hot.
func ageTree(dir string, age time.Duration) error {
	old := time.Now().Add(-age)
	var dirs []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, path)
			return nil
		}
		return os.Chtimes(path, old, old)
	})
	if err != nil {
		return errpath.Wrap("age", dir, err)
	}
	for i := len(dirs) - 1; i >= 0; i-- { // folders after their entries
		if err := os.Chtimes(dirs[i], old, old); err != nil {
			return errpath.Wrap("age", dirs[i], err)
		}
	}
	return nil
}

// touch creates or dates path now: the reference of `find -newer`.
func touch(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return errpath.Wrap("touch", path, err)
	}
	if err := f.Close(); err != nil {
		return errpath.Wrap("touch", path, err)
	}
	now := time.Now()
	return os.Chtimes(path, now, now)
}

// historyLine is what Claude Code appends to history.jsonl when a prompt
// is typed in a session (a --resume of an old one too): the session id
// and its working directory.
func historyLine(transcript string, at time.Time) ([]byte, error) {
	cwd, err := transcriptCwd(transcript)
	if err != nil {
		return nil, err
	}
	line, err := json.Marshal(map[string]any{
		"display": "a typed prompt", "pastedContents": map[string]any{},
		"timestamp": at.UnixMilli(), "project": cwd,
		"sessionId": strings.TrimSuffix(filepath.Base(transcript), ".jsonl"),
	})
	return append(line, '\n'), err
}

// transcriptCwd is the first cwd a transcript's lines carry.
func transcriptCwd(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", errpath.Wrap("read", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var rec struct {
			Cwd string `json:"cwd"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Cwd != "" {
			return rec.Cwd, nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", errpath.Wrap("read", path, err)
	}
	return "", fmt.Errorf("%s: no line with a cwd", path)
}

func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return errpath.Wrap("append to", path, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errpath.Wrap("append to", path, err)
	}
	return nil
}
