package claude

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/recall-dev/recall/internal/errpath"
)

// recordSuffix names install's record, next to settings.json.
const recordSuffix = ".recall-install"

// installRecord is what recall's first install found, so that uninstall
// can leave things as they were: whether settings.json existed (its bytes
// are then in the backup) and which directories install created (the
// configuration directory of a fresh CLAUDE_CONFIG_DIR, skills/,
// skills/recall). A later install adds to it and never forgets what the
// first one found.
type installRecord struct {
	SettingsExisted bool     `json:"settings_existed"`
	CreatedDirs     []string `json:"created_dirs,omitempty"`
}

func (s Setup) recordPath() string { return s.SettingsPath + recordSuffix }

// readRecord reads install's record, nil when there is none (recall is not
// installed, or was installed by a recall that kept none).
func (s Setup) readRecord() (*installRecord, error) {
	data, err := os.ReadFile(s.recordPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err // a *fs.PathError: it names the file
	}
	var rec installRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		s.logf("ignoring %s: %v", s.recordPath(), err)
		return nil, nil
	}
	return &rec, nil
}

func (s Setup) writeRecord(rec *installRecord) error {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(s.recordPath(), append(data, '\n'), newFileMode, nil); err != nil {
		return errpath.Wrap("write", s.recordPath(), err)
	}
	return nil
}

// missingDirs lists the directories from the topmost missing one down to
// dir: those MkdirAll(dir) would create.
func missingDirs(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); !exists(d); d = filepath.Dir(d) {
		out = append([]string{d}, out...)
		if filepath.Dir(d) == d {
			break
		}
	}
	return out
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// hasRecallHooks reports whether settings hold a recall hook handler.
func hasRecallHooks(settings *Object) bool {
	hooks, err := hooksObject(settings, false)
	if err != nil || hooks == nil {
		return false
	}
	for _, event := range hooks.Keys() {
		groups, err := eventGroups(hooks, event)
		if err != nil {
			continue
		}
		for _, h := range handlersIn(groups) {
			if isRecallHandler(h) {
				return true
			}
		}
	}
	return false
}
