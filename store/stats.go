package store

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store/forget"
	"github.com/recall-dev/recall/store/terms"
)

// IndexStats describes the committed index for `recall stats`.
type IndexStats struct {
	Dir           string `json:"index_dir"`
	FormatVersion int    `json:"format_version"`
	Feature       uint32 `json:"feature_version"` // text rules the derived files were built under
	// TermIndex says why searches cannot rank from the term index (they
	// read every row instead), "" when they can.
	TermIndex    string         `json:"term_index_problem,omitempty"`
	Updated      time.Time      `json:"updated"`
	DiskBytes    int64          `json:"disk_bytes"`
	Rows         int64          `json:"rows"`
	HiddenRows   int64          `json:"hidden_rows"`
	Blocks       int            `json:"blocks"`
	TermSegments int            `json:"term_segments"`       // term-index segments in use
	TermBlocks   int            `json:"term_blocks_covered"` // blocks they cover; below Blocks, searches read the rows
	TextBytes    int64          `json:"text_bytes"`
	Transcripts  map[string]int `json:"transcripts"` // by kind
	// Agents is what the index holds of each coding agent: its session
	// files and the rows they added (record.Agents names).
	Agents    map[string]AgentStats `json:"agents"`
	Sessions  int                   `json:"sessions"`
	Projects  int                   `json:"projects"`
	GoneFiles int                   `json:"gone_transcripts"`
	// Archived counts sessions whose main transcript is gone: the index
	// is their only copy.
	Archived int   `json:"archived_sessions"`
	GoneRows int64 `json:"gone_rows"`
	// ForkFiles counts transcripts an earlier recall left out whole as
	// forks that were deleted before this one could read them again.
	ForkFiles int `json:"fork_transcripts"`
	// BinaryFiles lists the transcripts skipped whole for not being text.
	BinaryFiles []string `json:"binary_transcripts"`
	// HeadlessSessions counts the sessions all of whose rows are from
	// headless runs, of Sessions.
	HeadlessSessions int              `json:"headless_sessions"`
	Excluded         map[string]int64 `json:"excluded"`
	// Strays are files of the index directory no committed manifest
	// names: an interrupted forget, rebuild or compaction left
	// them, zstdcat prints their rows, the next index run removes them.
	Strays []string `json:"stray_files"`
	// Forgotten counts what `recall forget` keeps out (the tombstone:
	// counts, never ids); ForgetPending says a forget or undo is not
	// applied yet (the next index run applies it); ForgetDamaged why the
	// tombstone does not read ("" when it does).
	Forgotten     forget.Counts `json:"forgotten"`
	ForgetPending bool          `json:"forget_pending"`
	ForgetDamaged string        `json:"forgotten_damaged,omitempty"`
}

// AgentStats is what the index holds of one coding agent.
type AgentStats struct {
	Files int   `json:"files"` // session files (transcripts, rollouts, chats, databases)
	Rows  int64 `json:"rows"`  // rows they added, hidden ones included
	// Excluded is what was left out of its sessions, by reason.
	Excluded map[string]int64 `json:"excluded"`
}

// splitExcluded sorts the manifest's exclusion counts into the totals
// and each agent's (manifest.AgentExcludedKey); Claude Code's share is
// what the other agents leave of each total.
func (st *IndexStats) splitExcluded(all map[string]int64) {
	others := map[string]int64{}
	for key, n := range all {
		agent, reason, ok := strings.Cut(key, ":")
		if !ok {
			st.Excluded[key] = n
			continue
		}
		a := st.Agents[agent]
		if a.Excluded == nil {
			a.Excluded = map[string]int64{}
		}
		a.Excluded[reason] += n
		st.Agents[agent] = a
		others[reason] += n
	}
	if claude, ok := st.Agents[record.AgentClaude]; ok {
		claude.Excluded = map[string]int64{}
		for reason, n := range st.Excluded {
			if left := n - others[reason]; left > 0 {
				claude.Excluded[reason] = left
			}
		}
		st.Agents[record.AgentClaude] = claude
	}
	for name, a := range st.Agents {
		if a.Excluded == nil {
			a.Excluded = map[string]int64{}
			st.Agents[name] = a
		}
	}
}

// stats reads the committed manifest of dir.
func stats(dir string) (*IndexStats, error) {
	m, err := manifest.ReadWhole(dir)
	if err != nil {
		return nil, err
	}
	st := &IndexStats{
		Dir: dir, FormatVersion: m.Format, Feature: m.Feature, Updated: time.Unix(0, m.UpdatedNs),
		Rows: m.Rows, HiddenRows: m.DeadRows(), Blocks: m.Frames - 1, TextBytes: m.TextBytes,
		Transcripts: map[string]int{}, Excluded: map[string]int64{}, BinaryFiles: []string{},
		Agents: map[string]AgentStats{},
	}
	sessions, projects := map[string]bool{}, map[string]bool{}
	for _, f := range m.Files() {
		st.Transcripts[f.Kind]++
		a := st.Agents[record.KindAgent(f.Kind)]
		a.Files++
		a.Rows += f.Rows
		st.Agents[record.KindAgent(f.Kind)] = a
		switch f.Verdict {
		case record.VerdictFork:
			st.ForkFiles++
			continue
		case record.VerdictBinary:
			st.BinaryFiles = append(st.BinaryFiles, f.Path)
		}
		if f.Rows > 0 {
			sessions[f.Session] = true
			projects[f.Project] = true
		}
		if f.Gone {
			st.GoneFiles++
			st.GoneRows += f.Rows
		}
	}
	st.Sessions, st.Projects = len(sessions), len(projects)
	st.splitExcluded(m.Excluded)
	for _, files := range m.SessionFiles() {
		if record.IsSessionKind(files[0].Kind) && files[0].Gone {
			st.Archived++
		}
	}
	st.DiskBytes = dirSize(dir)
	if refs, err := terms.Refs(dir); err == nil {
		cover, covered := terms.Cover(refs, m.Seq, m.BlockCount())
		st.TermSegments, st.TermBlocks = len(cover), covered
	}
	st.TermIndex = termIndexProblem(dir)
	slices.Sort(st.BinaryFiles)
	st.HeadlessSessions = st.sessionsFromRows(dir)
	st.Strays = strayFiles(dir, m)
	if st.Strays == nil {
		st.Strays = []string{}
	}
	if tomb, err := readTombstone(dir); err != nil {
		st.ForgetDamaged = err.Error()
	} else if tomb != nil {
		st.Forgotten = tomb.Counts()
		st.ForgetPending = tomb.Serial != m.ForgetSerial
	}
	return st, nil
}

// sessionsFromRows counts the sessions the rows hold, and their
// projects, into st, and returns how many are headless runs (0 when the
// index does not read: the damage report says why, and st keeps the
// manifest's count).
func (st *IndexStats) sessionsFromRows(dir string) int {
	snap, err := snapshot.Open(dir)
	if err != nil {
		return 0
	}
	defer snap.Close()
	sums, err := snap.SessionSummaries()
	if err != nil {
		return 0
	}
	n := 0
	projects := map[string]bool{}
	for i := range sums {
		if sums[i].Headless() {
			n++
		}
		projects[sums[i].Project] = true
	}
	// The rows know every session; the manifest knows one per file, and
	// a file can hold many (an OpenCode database, an Aider history), or
	// one with titles and no message (which `recall sessions` does not
	// list, having nothing to show of it).
	st.Sessions, st.Projects = len(sums), len(projects)
	return n
}

// termIndexProblem opens the term index as a search would and says why it
// cannot answer, "" when it can (or the index is empty).
func termIndexProblem(dir string) string {
	snap, err := snapshot.Open(dir)
	if err != nil {
		return err.Error()
	}
	defer snap.Close()
	if _, why := snap.TermSegments(); why != nil {
		return why.Error() // the caller says what mends it
	}
	return ""
}

func dirSize(dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range entries {
		// RowsLinkName is a second name of the rows file, not more bytes.
		if e.Name() == RowsLinkName {
			continue
		}
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && filepath.Ext(e.Name()) != ".log" {
			n += info.Size()
		}
	}
	return n
}

// DiskFile is a transcript found on disk, for CheckFreshness.
type DiskFile struct {
	Path    string
	Session string
	Size    int64
	MtimeNs int64
}

// Freshness says how far the index is behind the transcripts on disk.
type Freshness struct {
	OnDisk int `json:"transcripts_on_disk"`
	// Pending counts transcripts written since the index read them (or
	// never read), the running session's aside: it is indexed once it
	// ends.
	Pending int `json:"transcripts_pending"`
	// Newest is the newest pending transcript's last write (zero when
	// none is pending); Lag how long after the last index run it came.
	Newest time.Time     `json:"newest_pending_write,omitzero"`
	Lag    time.Duration `json:"lag_ns"`
}

// checkFreshness compares the transcripts on disk with what dir's
// committed index consumed of them. current is the running session.
func checkFreshness(dir string, files []DiskFile, current string) (Freshness, error) {
	m, err := manifest.ReadWhole(dir)
	if err != nil {
		return Freshness{}, err
	}
	fr := Freshness{OnDisk: len(files)}
	var newest int64
	for _, f := range files {
		if current != "" && f.Session == current {
			continue
		}
		st := m.File(f.Path)
		if st != nil && st.Size == f.Size && st.MtimeNs == f.MtimeNs || st == nil && f.Size == 0 {
			continue
		}
		fr.Pending++
		newest = max(newest, f.MtimeNs)
	}
	if fr.Pending > 0 {
		fr.Newest = time.Unix(0, newest)
		fr.Lag = max(fr.Newest.Sub(time.Unix(0, m.UpdatedNs)), 0)
	}
	return fr, nil
}
