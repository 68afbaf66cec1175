package claude

import (
	"github.com/recall-dev/recall/internal/atomicfile"
	"github.com/recall-dev/recall/internal/errpath"

	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// newFileMode is used for files recall creates in Claude Code's config
// directory: settings.json can hold API keys in "env", so it stays private.
const newFileMode fs.FileMode = 0o600

// settingsFile is settings.json as found on disk.
type settingsFile struct {
	// path is where the file is written: the user's path with symlinks
	// resolved, so a settings.json linked from a dotfiles repository stays
	// a link.
	path   string
	exists bool
	data   []byte
	mode   fs.FileMode
	// info describes the file as found, nil when it did not exist.
	info fs.FileInfo
	root *Object
}

// readSettings loads settings.json. A missing or blank file is an empty
// object; a file that is not a JSON object is refused, untouched.
func readSettings(path string) (*settingsFile, error) {
	target, err := resolveSymlinks(path)
	if err != nil {
		return nil, err
	}
	f := &settingsFile{path: target, mode: newFileMode, root: &Object{}}
	data, err := os.ReadFile(target)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, errpath.Wrap("read", path, err) // it names target, which may be path
	}
	info, err := os.Stat(target)
	if err != nil {
		return nil, errpath.Wrap("stat", path, err)
	}
	f.exists, f.data, f.mode, f.info = true, data, info.Mode().Perm(), info
	if f.root, err = parseSettings(data); err != nil {
		return nil, fmt.Errorf("%s is not valid settings JSON, left it untouched: %w", path, err)
	}
	return f, nil
}

// parseSettings decodes a settings document, which must be an object.
// A blank file (say, made by touch) counts as an empty object.
func parseSettings(data []byte) (*Object, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return &Object{}, nil
	}
	v, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(*Object)
	if !ok {
		return nil, fmt.Errorf("the top-level value is %s, want an object", jsonKind(v))
	}
	return obj, nil
}

// render encodes the settings in the file's own style: its indent unit,
// its line ending and whether it ends with a newline.
func (f *settingsFile) render() ([]byte, error) {
	out, err := encodeJSON(f.root, detectIndent(f.data))
	if err != nil {
		return nil, err
	}
	if !f.exists || bytes.HasSuffix(bytes.TrimRight(f.data, " \t\r"), []byte("\n")) {
		out = append(out, '\n')
	}
	if bytes.Contains(f.data, []byte("\r\n")) {
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	return out, nil
}

// resolveSymlinks follows links to the real file; a missing file is
// written where it was asked for.
func resolveSymlinks(path string) (string, error) {
	target, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, nil
	}
	if err != nil {
		return "", errpath.Wrap("resolve", path, err)
	}
	return target, nil
}

// writeBackupOnce saves the original settings the first time recall
// changes them and never again, so the backup is always the state from
// before recall.
func writeBackupOnce(path string, data []byte) (bool, error) {
	if _, err := os.Lstat(path); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err // a *fs.PathError: it names path
	}
	if err := writeFileAtomic(path, data, newFileMode, nil); err != nil {
		return false, err
	}
	return true, nil
}

// writeFileAtomic replaces path so that a reader (Claude Code watches
// settings.json) sees either the old or the new file, never a part, and
// a crash leaves one of the two on disk: temp file in the same directory,
// fsync, rename, fsync of the directory. With owner set, the new file
// keeps that file's owner and group (see keepOwner).
func writeFileAtomic(path string, data []byte, perm fs.FileMode, owner fs.FileInfo) error {
	return atomicfile.Write(path, data, perm, func(f *os.File) error { return keepOwner(f, owner) })
}

// keepOwner gives f the owner and group of the file it replaces. It
// matters under sudo: a settings.json turned root-owned would stop Claude
// Code from saving the user's settings. As a normal user the owner is
// already right and nothing is done.
func keepOwner(f *os.File, owner fs.FileInfo) error {
	st, ok := ownerOf(owner)
	if !ok || (int(st.Uid) == os.Geteuid() && int(st.Gid) == os.Getegid()) {
		return nil
	}
	if err := f.Chown(int(st.Uid), int(st.Gid)); err != nil {
		return err
	}
	return nil
}

func ownerOf(info fs.FileInfo) (*syscall.Stat_t, bool) {
	if info == nil {
		return nil, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	return st, ok
}
