package claude

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/recall-dev/recall/internal/errpath"
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
	// Hints adds the prompt hint's handlers (UserPromptSubmit,
	// SessionStart); without it install takes them out.
	Hints bool
	// HintPath is the prompt hook's small binary (cmd/recall-hint) that
	// answers UserPromptSubmit, when it is installed beside recall; ""
	// leaves that event to `recall hook` too.
	HintPath string
	// MCP registers recall's MCP server with Claude Code; nil leaves MCP
	// alone.
	MCP *MCPSetup
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
	if dir := configDirFromEnv(); dir != "" {
		return filepath.Abs(dir)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home directory: %w", err)
	}
	return filepath.Join(home, ".claude"), nil
}

// configDirFromEnv is $CLAUDE_CONFIG_DIR, the one place recall reads it
// (ConfigDir, UserConfigFile, and through ConfigDir the default source).
func configDirFromEnv() string { return os.Getenv("CLAUDE_CONFIG_DIR") }

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

// Install merges recall's hooks into settings.json, writes the skill and
// registers the MCP server. Before its first change it records what it
// found (installRecord, and the original settings.json in the backup),
// so that Uninstall can put it back byte for byte.
func Install(s Setup) error {
	f, err := readSettings(s.SettingsPath)
	if err != nil {
		return err
	}
	pristine := !hasRecallHooks(f.root) // before addHooks changes f.root
	changed, err := addHooks(f.root, handlerPaths{s.RecallPath, s.HintPath}, s.HookArgs, s.Hints)
	if err != nil {
		return fmt.Errorf("%s: %w; left it untouched", s.SettingsPath, err)
	}
	if !s.DryRun {
		if err := s.noteInstall(f, changed && pristine); err != nil {
			return err
		}
	}
	events := hookEvents()
	if s.Hints {
		events = allHookEvents()
	}
	if err := s.applySettings(f, changed, "add the recall hooks for "+strings.Join(events, ", ")); err != nil {
		return err
	}
	if err := s.applySkill(SkillText(s.RecallPath)); err != nil {
		return err
	}
	return s.registerMCP()
}

// noteInstall records, once, whether settings.json existed and which
// directories install is about to create, creates the settings file's
// directory, and saves the original settings.json (when there is one and
// it holds no recall hook yet, so it really is the state before recall).
func (s Setup) noteInstall(f *settingsFile, backup bool) error {
	rec, err := s.readRecord()
	if err != nil {
		return err
	}
	dirty := rec == nil
	if rec == nil {
		rec = &installRecord{SettingsExisted: f.exists || exists(s.backupPath())}
	}
	for _, dir := range []string{filepath.Dir(s.SettingsPath), s.SkillDir} {
		for _, d := range missingDirs(dir) {
			if !slices.Contains(rec.CreatedDirs, d) {
				rec.CreatedDirs = append(rec.CreatedDirs, d)
				dirty = true
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(s.SettingsPath), 0o700); err != nil {
		return err // a *fs.PathError: it names the folder
	}
	if dirty {
		if err := s.writeRecord(rec); err != nil {
			return err
		}
	}
	if !f.exists || !backup || !rec.SettingsExisted {
		return nil
	}
	saved, err := writeBackupOnce(s.backupPath(), f.data)
	if err != nil {
		return fmt.Errorf("back up the settings: %w", err) // it names the backup
	}
	if saved {
		s.logf("%s: saved the original as %s", s.SettingsPath, s.backupPath())
	}
	return nil
}

// Uninstall takes out exactly what Install added. settings.json comes back
// byte for byte: deleted when install created it and it holds nothing
// else, the original bytes when nothing but recall's hooks changed since;
// otherwise (the user or Claude Code changed other settings since) only
// recall's hook handlers and the containers that held only them are
// taken out. The skill, the directories install created (if empty), its
// record and the backup go too, and the MCP server is unregistered.
func Uninstall(s Setup) error {
	f, err := readSettings(s.SettingsPath)
	if err != nil {
		return err
	}
	rec, err := s.readRecord()
	if err != nil {
		return err
	}
	restored, err := s.restoreSettings(f, rec)
	if err != nil {
		return err
	}
	if err := s.removeSkill(); err != nil {
		return err
	}
	if !s.DryRun {
		if err := s.forgetInstall(rec, restored); err != nil {
			return err
		}
	}
	return s.unregisterMCP()
}

// restoreSettings puts settings.json back and reports whether it is now
// exactly what it was before recall (or gone, as it was).
func (s Setup) restoreSettings(f *settingsFile, rec *installRecord) (bool, error) {
	changed, err := removeHooks(f.root, s.originalContainers())
	if err != nil {
		return false, fmt.Errorf("%s: %w; left it untouched", s.SettingsPath, err)
	}
	createdByRecall := rec != nil && !rec.SettingsExisted
	switch {
	case !f.exists:
		s.logf("%s: nothing to change", s.SettingsPath)
		return createdByRecall, nil
	case createdByRecall && f.root.Len() == 0 && (changed || isEmptyDoc(f.data)):
		return true, s.deleteSettings(f)
	case !changed:
		s.logf("%s: nothing to change", s.SettingsPath)
		return false, nil
	}
	if original, ok := s.pristineBackup(f.root); ok {
		return true, s.writeRestored(f, original, "restore it as it was before recall")
	}
	if err := s.applySettings(f, true, "remove the recall hooks"); err != nil {
		return false, err
	}
	if !s.DryRun && exists(s.backupPath()) {
		s.logf("%s: other settings changed since install, so only recall's hooks were taken out; the file from before recall is kept as %s", s.SettingsPath, s.backupPath())
	}
	return false, nil
}

// pristineBackup returns the backup's bytes when they are the settings
// now with recall's hooks taken out (whatever the layout): restoring
// them then loses nothing and undoes install's reformatting.
func (s Setup) pristineBackup(now *Object) ([]byte, bool) {
	data, err := os.ReadFile(s.backupPath())
	if err != nil {
		return nil, false
	}
	backup, err := parseSettings(data)
	if err != nil || hasRecallHooks(backup) {
		return nil, false
	}
	return data, reflect.DeepEqual(plain(now), plain(backup))
}

// writeRestored writes original over settings.json (keeping its mode and
// owner), or in a dry run prints the diff.
func (s Setup) writeRestored(f *settingsFile, original []byte, what string) error {
	if string(original) == string(f.data) {
		s.logf("%s: nothing to change", s.SettingsPath)
		return nil
	}
	if s.DryRun {
		fmt.Fprint(s.Out, unifiedDiff(s.SettingsPath, s.SettingsPath+" (after)", f.data, original))
		s.logf("%s: would %s (dry run, nothing written)", s.SettingsPath, what)
		return nil
	}
	if err := writeFileAtomic(f.path, original, f.mode, f.info); err != nil {
		return errpath.Wrap("write", s.SettingsPath, err)
	}
	s.logf("%s: %s", s.SettingsPath, what)
	return nil
}

// deleteSettings removes a settings.json that install created and that
// holds nothing else.
func (s Setup) deleteSettings(f *settingsFile) error {
	if s.DryRun {
		fmt.Fprint(s.Out, unifiedDiff(s.SettingsPath, "/dev/null", f.data, nil))
		s.logf("%s: would remove it: recall created it and it holds nothing else (dry run, nothing written)", s.SettingsPath)
		return nil
	}
	if err := os.Remove(f.path); err != nil {
		return errpath.Wrap("remove", s.SettingsPath, err)
	}
	s.logf("%s: removed it: recall created it and it held nothing else", s.SettingsPath)
	return nil
}

// isEmptyDoc reports whether data is an empty settings document ("{}"
// or blank), as a settings.json recall created ends up without its hooks.
func isEmptyDoc(data []byte) bool {
	obj, err := parseSettings(data)
	return err == nil && obj.Len() == 0
}

// forgetInstall removes what only install's record and backup needed, and
// the directories install created if they are empty.
func (s Setup) forgetInstall(rec *installRecord, restored bool) error {
	if restored {
		if err := removeIfExists(s.backupPath()); err != nil {
			return err
		}
	}
	if err := removeIfExists(s.recordPath()); err != nil {
		return err
	}
	if rec == nil {
		return nil
	}
	dirs := slices.Clone(rec.CreatedDirs)
	slices.SortFunc(dirs, func(a, b string) int { return len(b) - len(a) }) // deepest first
	for _, d := range dirs {
		if err := os.Remove(d); err == nil {
			s.logf("%s: removed the directory recall created", d)
		}
	}
	return nil
}

// originalContainers reads the backup to learn which hook containers the
// user had before recall, minus any recall handler in them. Without a
// backup (settings.json did not exist before) recall made them all.
// An unreadable backup is reported and treated as having none.
func (s Setup) originalContainers() containers {
	if !exists(s.backupPath()) {
		return containers{}
	}
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

// applySettings writes the changed settings, or in a dry run prints the
// diff instead.
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
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return err
	}
	if err := writeFileAtomic(f.path, after, f.mode, f.info); err != nil {
		return errpath.Wrap("write", s.SettingsPath, err)
	}
	s.logf("%s: %s", s.SettingsPath, what)
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
