package codex

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// Codex keeps the names threads are given in session_index.jsonl in its
// home, a line {"id", "thread_name", "updated_at"} each time one is
// named; a thread's last line is its name. The rollout itself does not
// hold it, so a read of a thread's own session_meta looks its name up
// there and keeps it as the session's title (a name a person gave:
// record.TitleCustom). A name given after the rollout was read (Codex
// names a thread once its first turn is done, the editor extensions by
// a run of their own) is taken at the next read of its new lines, when
// session_index.jsonl changed after the rollout's last read
// (nameGivenSince); a change of session_index.jsonl alone reads no
// rollout.

// sessionIndexFile is Codex's list of thread names.
const sessionIndexFile = "session_index.jsonl"

// maxSessionIndexBytes bounds what is read of it, once a rollout read:
// its end, where the newest names are (a line a naming, so a megabyte
// is thousands of them).
const maxSessionIndexBytes = 2 << 20

// homeOf is the Codex home of the rollout at path: the folder holding
// the sessions/ or archived_sessions/ folder it lies in (at most
// sessions/YYYY/MM/DD deep), "" when it lies in neither.
func homeOf(path string) string {
	dir := filepath.Dir(path)
	for range 4 {
		switch filepath.Base(dir) {
		case sessionsDir, archivedDir:
			return filepath.Dir(dir)
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	return ""
}

// threadName is the last name session_index.jsonl in home gives thread
// id, "" when it gives none or cannot be read. Only lines that hold the
// id are decoded.
func threadName(home, id string) string {
	if home == "" || id == "" {
		return ""
	}
	f, err := transcript.OpenRegular(filepath.Join(home, sessionIndexFile))
	if err != nil {
		return "" // no names kept
	}
	defer f.Close()
	var r io.Reader = f
	if fi, err := f.Stat(); err == nil && fi.Size() > maxSessionIndexBytes {
		if _, err := f.Seek(fi.Size()-maxSessionIndexBytes, io.SeekStart); err != nil {
			return ""
		}
		br := bufio.NewReaderSize(f, 64<<10)
		if _, err := br.ReadSlice('\n'); err != nil && err != bufio.ErrBufferFull {
			return "" // the part line the seek cut; a longer one is skipped as too long below
		}
		r = br
	}
	name := ""
	lower, upper := []byte(strings.ToLower(id)), []byte(strings.ToUpper(id))
	_ = transcript.ScanLines(bufio.NewReaderSize(io.LimitReader(r, maxSessionIndexBytes), 64<<10), transcript.MaxLineBytes, func(line []byte, tooLong int64) bool {
		if tooLong > 0 || !bytes.Contains(line, lower) && !bytes.Contains(line, upper) {
			return true
		}
		var e struct {
			ID         string `json:"id"`
			ThreadName string `json:"thread_name"`
		}
		if json.Unmarshal(line, &e) == nil && strings.EqualFold(e.ID, id) {
			name = strings.TrimSpace(e.ThreadName)
		}
		return true
	})
	return name
}

// nameGivenSince keeps the thread's name as its session's title at a read
// that goes on from the last (line n its first), when the names were
// changed since that read: by then the rollout's own session_meta was
// read, and the title it looked up is in the index already if it had
// one. (The rollout's time at the last read stands for that read's.)
func (p *parser) nameGivenSince(n int) {
	if p.state.Offset <= 0 || p.state.MtimeNs == 0 {
		return
	}
	home := homeOf(p.path)
	if home == "" {
		return
	}
	fi, err := os.Stat(filepath.Join(home, sessionIndexFile))
	if err != nil || fi.ModTime().UnixNano() <= p.state.MtimeNs {
		return
	}
	p.titleOnce(n, p.lastTS)
}

// titleOnce keeps the thread's name as its session's title, once a read,
// when the read meets the thread's own session_meta (line n, at ts). A
// thread Codex ran for itself makes no rows, nor a title. A
// subagent's thread is not the session its rows belong to: its name is
// not the session's.
func (p *parser) titleOnce(n int, ts string) {
	if p.b == nil || p.titled || !p.metaSeen || p.origin != "" || p.parent != "" || p.ownRun {
		return
	}
	p.titled = true
	name := threadName(homeOf(p.path), p.owner)
	if name == "" {
		return
	}
	p.b.Title(transcript.Meta{Session: p.session(), Project: p.project, Timestamp: ts, Line: n, Entrypoint: p.entry,
		UUID: uuidOf("title\x00"+strings.ToLower(p.owner)+"\x00"+name, 0)}, record.TitleCustom, name)
}
