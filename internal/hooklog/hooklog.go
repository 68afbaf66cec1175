// Package hooklog is the index directory's hook.log: one line per hook
// call, written by `recall hook` (package claude) and by the prompt
// hook's small binary (cmd/recall-hint), which must not link claude to
// write it.
package hooklog

import (
	"errors"
	"fmt"
	"golang.org/x/sys/unix"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/recall-dev/recall/internal/rawfile"
)

// FileName, in the index directory, collects one line per hook call and
// the output of the indexers hooks start.
const FileName = "hook.log"

// MaxBytes is where hook.log is set aside as hook.log.1 and started
// afresh, so a log nobody reads cannot grow without bound.
const MaxBytes = 1 << 20

// Open opens indexDir's hook.log for appending, creating the directory
// private to the user and setting a full log aside first.
func Open(indexDir string) (*os.File, error) {
	if err := os.MkdirAll(indexDir, 0o700); err != nil {
		return nil, fmt.Errorf("create index dir: %w", err)
	}
	path := filepath.Join(indexDir, FileName)
	if info, err := os.Stat(path); err == nil && info.Size() > MaxBytes {
		_ = os.Rename(path, path+".1") // at worst the log grows a while longer
	}
	f, err := rawfile.OpenAppend(path, 0o600) // os.OpenFile with fewer system calls: the prompt hook opens it on every prompt
	if err != nil {
		return nil, fmt.Errorf("open hook log: %w", err)
	}
	return f, nil
}

// Append appends line to indexDir's hook.log in one write (so that the
// lines of hooks running at once do not interleave), as Open would open
// it, in four system calls (open, fstat, write, close) where Open and a
// write through an *os.File take seven: the prompt hook's small binary
// logs on every prompt.
func Append(indexDir, line string) error {
	path := filepath.Join(indexDir, FileName)
	fd, err := rawfile.OpenFD(path, unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		return appendOpened(indexDir, line) // the index directory first
	}
	if err != nil {
		return fmt.Errorf("open hook log: %w", err)
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && st.Size > MaxBytes {
		unix.Close(fd)
		return appendOpened(indexDir, line) // sets the full log aside
	}
	_, err = unix.Write(fd, []byte(line))
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write hook log: %w", err)
	}
	return nil
}

// appendOpened is Append through Open.
func appendOpened(indexDir, line string) error {
	f, err := Open(indexDir)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write hook log: %w", err)
	}
	return nil
}

// Line formats one call as
// "<time> <event> [name="value"]…: <outcome>[; problem]…", on one line
// whatever the parts hold. fields with an empty value are left out.
func Line(now time.Time, event string, fields [][2]string, outcome string, problems []string) string {
	var b strings.Builder
	b.WriteString(now.UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	b.WriteByte(' ')
	if event == "" {
		event = "unknown-event"
	}
	b.WriteString(event)
	for _, kv := range fields {
		if kv[1] != "" {
			// strconv, not fmt: fmt's code is pages the prompt hook's
			// small binary would fault in for this alone.
			b.WriteByte(' ')
			b.WriteString(kv[0])
			b.WriteByte('=')
			b.WriteString(strconv.Quote(kv[1]))
		}
	}
	b.WriteString(": ")
	b.WriteString(outcome)
	for _, p := range problems {
		b.WriteString("; ")
		b.WriteString(p)
	}
	// One record, one line, whatever an error message holds.
	return strings.ReplaceAll(b.String(), "\n", `\n`) + "\n"
}
