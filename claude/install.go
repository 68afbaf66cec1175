package claude

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// backupSuffix names the copy of settings.json taken before recall first
// changed it.
const backupSuffix = ".recall-backup"

// Setup says where recall installs itself and where it reports.
type Setup struct {
	// SettingsPath is the settings.json to merge hooks into.
	SettingsPath string
	// SkillDir is the directory of the recall skill (…/skills/recall).
	SkillDir string
	// RecallPath is the absolute path of the recall binary the hooks run.
	RecallPath string
	// HookArgs are flags the hook command passes to `recall hook`: the
	// index directory and sources when they are not the defaults, so the
	// hooks index where searches from this shell look.
	HookArgs []string
	// DryRun prints the change to Out and writes nothing.
	DryRun bool
	// Out receives the dry-run diff: it is the command's result.
	Out io.Writer
	// Log receives the short human summary.
	Log io.Writer
}

// ConfigDir is Claude Code's configuration directory: $CLAUDE_CONFIG_DIR,
// else ~/.claude.
func ConfigDir() (string, error) {
	if dir := os.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		return filepath.Abs(dir)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home directory: %w", err)
	}
	return filepath.Join(home, ".claude"), nil
}

// DefaultSetup places settings.json and the skill for settingsPath, or
// for Claude Code's configuration directory when it is empty. The skill
// goes next to the settings file, under skills/recall, since that file
// sits in the configuration directory.
func DefaultSetup(settingsPath string) (Setup, error) {
	if settingsPath == "" {
		dir, err := ConfigDir()
		if err != nil {
			return Setup{}, err
		}
		settingsPath = filepath.Join(dir, "settings.json")
	}
	abs, err := filepath.Abs(settingsPath)
	if err != nil {
		return Setup{}, fmt.Errorf("settings path %s: %w", settingsPath, err)
	}
	return Setup{
		SettingsPath: abs,
		SkillDir:     filepath.Join(filepath.Dir(abs), "skills", "recall"),
	}, nil
}

// Install merges recall's hooks into settings.json and writes the skill.
func Install(s Setup) error {
	f, err := readSettings(s.SettingsPath)
	if err != nil {
		return err
	}
	changed, err := addHooks(f.root, s.RecallPath, s.HookArgs)
	if err != nil {
		return fmt.Errorf("%s: %w; left it untouched", s.SettingsPath, err)
	}
	if err := s.applySettings(f, changed, "add the recall hooks for "+strings.Join(hookEvents(), " and ")); err != nil {
		return err
	}
	return s.applySkill(SkillText(s.RecallPath))
}

// Uninstall takes out exactly what Install added: recall's hook handlers,
// the containers that held only them, and the skill.
func Uninstall(s Setup) error {
	f, err := readSettings(s.SettingsPath)
	if err != nil {
		return err
	}
	original := s.originalContainers()
	changed, err := removeHooks(f.root, original)
	if err != nil {
		return fmt.Errorf("%s: %w; left it untouched", s.SettingsPath, err)
	}
	if err := s.applySettings(f, changed, "remove the recall hooks"); err != nil {
		return err
	}
	return s.removeSkill()
}

// originalContainers reads the backup to learn which hook containers the
// user had before recall, minus any recall handler in them. Without a
// backup (settings.json did not exist before) recall made them all.
// An unreadable backup is reported and treated as having none.
func (s Setup) originalContainers() containers {
	backup, err := readSettings(s.backupPath())
	if err == nil {
		_, err = removeHooks(backup.root, containers{})
	}
	if err != nil {
		s.logf("ignoring the backup: %v", err)
		return containers{}
	}
	return containersIn(backup.root)
}

func (s Setup) backupPath() string { return s.SettingsPath + backupSuffix }

// applySettings writes the changed settings (after a one-time backup), or
// in a dry run prints the diff instead.
func (s Setup) applySettings(f *settingsFile, changed bool, what string) error {
	if !changed {
		s.logf("%s: nothing to change", s.SettingsPath)
		return nil
	}
	after, err := f.render()
	if err != nil {
		return fmt.Errorf("encode %s: %w", s.SettingsPath, err)
	}
	if s.DryRun {
		fmt.Fprint(s.Out, unifiedDiff(s.SettingsPath, s.SettingsPath+" (after)", f.data, after))
		s.logf("%s: would %s (dry run, nothing written)", s.SettingsPath, what)
		return nil
	}
	if err := s.writeSettings(f, after); err != nil {
		return err
	}
	s.logf("%s: %s", s.SettingsPath, what)
	return nil
}

func (s Setup) writeSettings(f *settingsFile, after []byte) error {
	if f.exists {
		saved, err := writeBackupOnce(s.backupPath(), f.data)
		if err != nil {
			return fmt.Errorf("back up %s: %w", s.SettingsPath, err)
		}
		if saved {
			s.logf("%s: saved the original as %s", s.SettingsPath, s.backupPath())
		}
	} else if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(f.path), err)
	}
	if err := writeFileAtomic(f.path, after, f.mode, f.info); err != nil {
		return fmt.Errorf("write %s: %w", s.SettingsPath, err)
	}
	return nil
}

// applySkill writes the skill when its text differs, or prints the diff.
func (s Setup) applySkill(text string) error {
	old, err := readSkill(s.SkillDir)
	if err != nil {
		return err
	}
	path := skillFile(s.SkillDir)
	switch {
	case old == text:
		s.logf("%s: up to date", path)
	case s.DryRun:
		fmt.Fprint(s.Out, unifiedDiff(path, path+" (after)", []byte(old), []byte(text)))
		s.logf("%s: would write the recall skill (dry run, nothing written)", path)
	default:
		if err := writeSkill(s.SkillDir, text); err != nil {
			return err
		}
		s.logf("%s: wrote the recall skill", path)
	}
	return nil
}

func (s Setup) removeSkill() error {
	path := skillFile(s.SkillDir)
	if _, err := os.Lstat(s.SkillDir); os.IsNotExist(err) {
		s.logf("%s: no skill to remove", s.SkillDir)
		return nil
	}
	if s.DryRun {
		old, err := readSkill(s.SkillDir)
		if err != nil {
			return err
		}
		fmt.Fprint(s.Out, unifiedDiff(path, "/dev/null", []byte(old), nil))
		s.logf("%s: would remove the recall skill (dry run, nothing written)", s.SkillDir)
		return nil
	}
	dirRemoved, err := removeSkill(s.SkillDir)
	if err != nil {
		return err
	}
	if dirRemoved {
		s.logf("%s: removed the recall skill", s.SkillDir)
	} else {
		s.logf("%s: removed %s; kept the directory, it holds other files", s.SkillDir, skillFileName)
	}
	return nil
}

func (s Setup) logf(format string, args ...any) {
	if s.Log != nil {
		fmt.Fprintf(s.Log, "recall: "+format+"\n", args...)
	}
}
