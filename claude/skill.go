package claude

import (
	_ "embed"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

//go:embed skill.md
var skillTemplate string

// skillFileName is the file Claude Code reads a skill from.
const skillFileName = "SKILL.md"

// SkillText is the recall skill, naming the recall binary by its path so
// that it works when recall is not on Claude's PATH.
func SkillText(recallPath string) string {
	return strings.ReplaceAll(skillTemplate, "{{RECALL}}", recallPath)
}

// skillFile is the skill file inside a skill directory.
func skillFile(dir string) string { return filepath.Join(dir, skillFileName) }

// readSkill returns the installed skill text, "" when there is none.
func readSkill(dir string) (string, error) {
	data, err := os.ReadFile(skillFile(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err // a *fs.PathError: it names the file
	}
	return string(data), nil
}

// writeSkill installs the skill text, creating the directory private to
// the user like the rest of Claude Code's configuration.
func writeSkill(dir, text string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return writeFileAtomic(skillFile(dir), []byte(text), newFileMode, nil)
}

// removeSkill deletes SKILL.md and then the skill directory if nothing
// else is in it: files the user added there are not recall's to delete.
// It reports whether the directory itself is gone.
func removeSkill(dir string) (dirRemoved bool, err error) {
	if err := os.Remove(skillFile(dir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	err = os.Remove(dir)
	switch {
	case err == nil || errors.Is(err, fs.ErrNotExist):
		return true, nil
	case errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST):
		return false, nil
	}
	return false, err
}
