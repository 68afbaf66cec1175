package indexer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/indexer/freshstate"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store/forget"
	"github.com/recall-dev/recall/textrules"
	"github.com/recall-dev/recall/transcript"
)

// The quick check (Options.Quick) finds what changed since the last run in
// a handful of system calls instead of stat'ing every transcript. It
// trusts these signals, kept in freshstate.State between runs:
//
//   - the mtime of each root and project folder: creating, removing or
//     renaming a transcript or a session folder changes it, so new
//     sessions, new projects and deletions are seen; a changed folder is
//     listed again (no stat of the files it already had);
//   - history.jsonl: a line per typed prompt names its session, so an
//     interactive session (a --resume of an old one too) is checked;
//   - sessions/<pid>.json: running sessions are checked on every run;
//   - the hot set: transcripts seen written within HotKeep (and every file
//     a signal named or a listing found) are stat'ed on every run, with
//     their subagent folders, until they have been quiet that long and
//     all their bytes are indexed.
//
// What it cannot see: bytes appended to, or a truncation or rewrite of, a
// transcript outside the hot set whose session is not running and wrote
// no history line, and subagent files added to such a session: that is
// `claude -p --resume` of an old session (headless runs write no history),
// or a file changed by hand. The backstop covers them: a run more than
// SweepEvery after the last full sweep sweeps again, so such a change is
// indexed by the first run after that. recall's hooks (recall install)
// run full sweeps and name -p runs too, closing the gap when installed.
// A source that is not a Claude Code projects folder (after symlinks) has
// no signals at all: every run over it sweeps.

// Defaults of the quick check.
const (
	// DefaultSweepEvery bounds staleness: a quick run sweeps everything
	// when the last full sweep is older than this.
	DefaultSweepEvery = 10 * time.Minute
	// HotKeep is how long a transcript stays in the hot set after its last
	// write: long enough for the asynchronous writes after a turn, a
	// session sitting idle between prompts, and a hook that lags.
	HotKeep = 15 * time.Minute
	// racyWindow: a folder mtime this close to the time it was read may
	// be followed by a creation in the same clock tick that leaves it
	// unchanged (coarse filesystem clocks), so it is listed again next run.
	racyWindow = 2 * time.Second
)

// quick is one quick check: what it found, and the state to keep.
type quick struct {
	opts  Options
	prev  *freshstate.State
	next  *freshstate.State
	now   time.Time
	found []transcript.Transcript
	// hot are the paths checked this run that stay in the hot set unless
	// dropped; signaled ones are never dropped this run.
	hot      map[string]bool
	signaled map[string]bool
	relist   []string // project folders whose entries changed
	vanished []string // folders gone: every transcript below is gone
	gone     []string // hot transcripts gone
	// needManifest is set once anything may differ from the manifest.
	needManifest bool
	projects     map[string][]string // root → its project folders
}

// startQuick runs the quick check; nil means the state cannot be trusted
// (missing, another version, other sources, a manifest it does not know,
// a sweep too old, history replaced) and the run sweeps, for the reason
// given.
func startQuick(opts Options) (*quick, string) {
	prev, err := freshstate.Read(opts.index())
	if err != nil {
		return nil, "no freshness state to trust (" + err.Error() + ")"
	}
	now := opts.now()
	mid, err := opts.index().ManifestID()
	switch {
	case err != nil || prev.Manifest != mid:
		return nil, "the manifest was written by a run that kept no freshness state"
	case opts.index().TombstoneID() != prev.Forgotten:
		return nil, "the list of forgotten sessions changed"
	case prev.Feature != textrules.FeatureVersion || !slices.Equal(prev.Sources, opts.SourceList()):
		return nil, "the freshness state is of another version or other sources"
	case now.Sub(time.Unix(0, prev.SweepNs)) > opts.sweepEvery() || prev.SweepNs > now.UnixNano():
		return nil, fmt.Sprintf("the last full check is over %v old", opts.sweepEvery())
	}
	q := &quick{opts: opts, prev: prev, now: now, hot: map[string]bool{}, signaled: map[string]bool{},
		projects: map[string][]string{}}
	q.next = freshstate.New(opts.SourceList())
	q.next.Manifest, q.next.SweepNs, q.next.Files, q.next.Forgotten = prev.Manifest, prev.SweepNs, prev.Files, prev.Forgotten
	for _, root := range opts.Sources {
		if !q.checkRoot(root) {
			return nil, "a transcript root is new, gone or changed its layout: " + root
		}
		if why := q.readSignals(root); why != "" {
			return nil, why
		}
	}
	q.checkAgents()
	q.checkHot()
	return q, ""
}

// checkRoot stats a root and its project folders; false means sweep.
func (q *quick) checkRoot(root string) bool {
	d, ok := q.prev.Dirs[root]
	if !ok {
		return false // never seen (did not exist, or another layout): sweep
	}
	if !d.Root {
		q.projects[root] = []string{root}
		q.checkProject(root, d)
		return true
	}
	known := q.knownProjects(root)
	mt, err := transcript.DirMtime(root)
	if err != nil {
		return false
	}
	if mt == d.MtimeNs && d.MtimeNs != 0 {
		q.next.Dirs[root] = d
		q.projects[root] = known
		for _, p := range known {
			q.checkProject(p, q.prev.Dirs[p])
		}
		return true
	}
	q.next.Dirs[root] = freshstate.Dir{Root: true, MtimeNs: q.notRacy(mt)}
	listed := transcript.ProjectDirs(q.opts.Sources, root, q.opts.Warn)
	if len(listed) == 1 && listed[0] == root {
		return false // the root turned into a project folder
	}
	if len(listed) == 0 && len(known) > 0 && !readable(root) {
		return false // unreadable: a sweep says so, rather than take every project for gone
	}
	q.projects[root] = listed
	for _, p := range listed {
		if d, ok := q.prev.Dirs[p]; ok {
			q.checkProject(p, d)
		} else {
			q.newProject(p)
		}
	}
	for _, p := range known {
		if !slices.Contains(listed, p) {
			q.vanished = append(q.vanished, p)
			q.needManifest = true
		}
	}
	return true
}

// knownProjects are the project folders of root the state remembers.
func (q *quick) knownProjects(root string) []string {
	var out []string
	for p, d := range q.prev.Dirs {
		if !d.Root && filepath.Dir(p) == root {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// checkProject stats a known project folder: unchanged, changed (listed
// again once the manifest is loaded) or gone.
func (q *quick) checkProject(p string, d freshstate.Dir) {
	mt, err := transcript.DirMtime(p)
	switch {
	case err != nil:
		q.vanished = append(q.vanished, p)
		q.needManifest = true
	case mt == d.MtimeNs && d.MtimeNs != 0:
		q.next.Dirs[p] = d
	default:
		q.next.Dirs[p] = freshstate.Dir{MtimeNs: q.notRacy(mt)}
		q.relist = append(q.relist, p)
		q.needManifest = true
	}
}

// newProject finds every transcript of a project folder first seen now.
func (q *quick) newProject(p string) {
	mt, err := transcript.DirMtime(p)
	if err != nil {
		return
	}
	q.next.Dirs[p] = freshstate.Dir{MtimeNs: q.notRacy(mt)}
	for _, t := range transcript.DiscoverProject(q.opts.Sources, p, q.opts.Warn) {
		q.add(t, true)
	}
	q.needManifest = true
}

// notRacy is mt, or 0 ("list again") when it is too recent to trust.
func (q *quick) notRacy(mt int64) int64 {
	if q.now.Sub(time.Unix(0, mt)) < racyWindow {
		return 0
	}
	return mt
}

// readSignals reads root's history.jsonl and sessions folder and adds the
// transcripts they name. It returns why a sweep is needed instead, or "":
// no signals to read, history replaced or cut, or too much of it to read.
func (q *quick) readSignals(root string) string {
	cfg := transcript.ConfigDir(root)
	if cfg == "" {
		// No signals: only a sweep sees an append to a quiet transcript.
		return root + " is not a Claude Code projects folder: it has no history.jsonl or sessions folder to read"
	}
	var active []transcript.ActiveSession
	hp := filepath.Join(cfg, "history.jsonl")
	id, err := record.StatID(hp)
	prev, had := q.prev.History[hp]
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
		if had {
			return hp + " is gone"
		}
	case err != nil:
		return err.Error()
	case had && (prev.Dev != id.Dev || prev.Ino != id.Ino || id.Size < prev.Offset):
		return hp + " was replaced or cut"
	default:
		var from transcript.HistoryMark // the start: nothing before it to fingerprint
		if had {
			from = transcript.HistoryMark{Offset: prev.Offset, Tail: prev.Tail}
		}
		named, mark, err := transcript.HistorySince(hp, from, id.Size)
		if err != nil {
			return hp + ": " + err.Error() // cut and written again past the offset, or too much new
		}
		active = append(active, named...)
		q.next.History[hp] = freshstate.History{Dev: id.Dev, Ino: id.Ino, Offset: mark.Offset, Tail: mark.Tail}
	}
	active = append(active, transcript.RunningSessions(filepath.Join(cfg, "sessions"))...)
	for _, s := range active {
		if t, ok := transcript.FindSession(root, s, q.projects[root]); ok && !q.hot[t.Path] {
			q.signaled[t.Path] = true
			q.add(t, true)
			q.addSubagents(t)
		}
	}
	return ""
}

// checkHot stats the hot set and the subagent folders of its sessions.
func (q *quick) checkHot() {
	for _, path := range sortedHot(q.prev.Hot) {
		if q.hot[path] {
			continue
		}
		t, err := transcript.StatTranscript(path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				q.gone = append(q.gone, path)
				q.needManifest = true
			}
			continue
		}
		q.add(t, false)
		q.addSubagents(t)
	}
}

func sortedHot(hot map[string]record.FileID) []string {
	out := make([]string, 0, len(hot))
	for p := range hot {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// addSubagents adds the subagent transcripts of a main transcript.
func (q *quick) addSubagents(t transcript.Transcript) {
	if t.Kind != record.KindMain {
		return
	}
	dir := filepath.Join(filepath.Dir(t.Path), t.Session)
	for _, s := range transcript.DiscoverSessionDir(q.opts.Sources, dir, func(string) {}) {
		if !q.hot[s.Path] {
			q.add(s, true)
		}
	}
}

// add makes t a candidate of this run and a member of the hot set. A
// transcript whose stat differs from what the hot set says the manifest
// holds (or that the hot set does not know) needs the manifest, unless it
// belongs to the running session, which is never read while current.
func (q *quick) add(t transcript.Transcript, fresh bool) {
	if q.hot[t.Path] {
		return
	}
	q.hot[t.Path] = true
	q.found = append(q.found, t)
	was, ok := q.prev.Hot[t.Path]
	changed := !ok || was != fileID(t.Stat)
	if changed && (t.Session == "" || t.Session != q.opts.CurrentSession) {
		q.needManifest = true
	}
	switch {
	case ok:
		q.next.Hot[t.Path] = was
	default:
		q.next.Hot[t.Path] = unknownID // not in the manifest's state yet
	}
	if !fresh && !changed && !q.signaled[t.Path] && q.now.Sub(time.Unix(0, t.Stat.MtimeNs)) > q.opts.hotKeep() {
		delete(q.next.Hot, t.Path) // quiet long enough, and all indexed
	}
}

// unknownID matches no stat: a hot transcript the manifest may not hold
// in its current state yet, so the next run loads the manifest for it.
var unknownID = record.FileID{Size: -1}

func fileID(s transcript.FileStat) record.FileID {
	return record.FileID{Dev: s.Dev, Ino: s.Ino, Size: s.Size, MtimeNs: s.MtimeNs}
}

// finishNoChange keeps the state of a run that found nothing to read,
// writing it only if it moved (history read on, hot set shrunk).
func (q *quick) finishNoChange() {
	if q.next.Equal(q.prev) {
		return
	}
	if err := freshstate.Write(q.opts.writer(), q.next); err != nil {
		q.opts.Warn(err.Error())
	}
}

// discovery is what a run compares with the manifest: the transcripts
// found, and which manifest entries are gone.
type discovery struct {
	found  []transcript.Transcript
	isGone func(path string, seen bool) bool
	sweep  *sweepStart // set for a full sweep
	// all: any manifest entry may be gone (a sweep); else only those
	// in gone are.
	all  bool
	gone []string
	// upgrade: the index was built under rules before tolerantReading
	// (indexer.go), which took a file opening with a line that is not
	// JSON for binary and kept no titles: the files it judged binary are
	// read again, and the titles of what it read are read.
	upgrade bool
	// forget holds the rules of `recall forget` in force (nil: none):
	// the transcripts they keep out are not read, and the rows they
	// forget are not added (runWith reads the tombstone).
	forget *forget.Filter
}

// termsCheck is how closely the run checks the term segments it keeps:
// a sweep opens each as a search would; a quick run, whose cost must not
// grow with the index, reads their headers (a segment damaged past its
// header is met by the search that opens it, which reads the rows instead
// and names `recall index --repair`, and by the next sweep).
func (d discovery) termsCheck() (openEach bool) { return d.sweep != nil }

// discover lists what the quick check pointed at, now that the manifest
// says which entries of a changed folder are new and which are gone.
func (q *quick) discover(m *manifest.Manifest) discovery {
	gone := map[string]bool{}
	for _, p := range q.gone {
		gone[p] = true
	}
	for _, dir := range q.vanished {
		prefix := dir + string(filepath.Separator)
		for path := range m.LoadUnder(prefix) {
			if strings.HasPrefix(path, prefix) {
				gone[path] = true
			}
		}
	}
	for _, p := range q.relist {
		q.relistProject(p, m, gone)
	}
	return discovery{found: q.found, isGone: func(path string, seen bool) bool { return !seen && gone[path] },
		gone: sortedKeysOf(gone)}
}

// relistProject lists a changed project folder: its transcript files are
// stat'ed (new ones, and known ones replaced by a rename), session folders with no transcript
// in the manifest are searched for subagents, and manifest entries whose
// file or session folder is no longer listed are gone.
func (q *quick) relistProject(p string, m *manifest.Manifest, gone map[string]bool) {
	entries, err := transcript.ListProject(q.opts.Sources, p)
	if err != nil {
		q.opts.Warn("read project " + p + ": " + err.Error())
		q.next.Dirs[p] = freshstate.Dir{} // list it again next run
		return
	}
	listed := map[string]bool{}
	for _, e := range entries {
		listed[e.Name] = true
	}
	knownDirs := map[string]bool{}
	prefix := p + string(filepath.Separator)
	for path, st := range m.LoadUnder(prefix) {
		if !strings.HasPrefix(path, prefix) {
			continue
		}
		first, _, nested := strings.Cut(path[len(prefix):], string(filepath.Separator))
		if nested {
			knownDirs[first] = true
		}
		if !listed[first] && !st.Gone {
			gone[path] = true
		}
	}
	for _, e := range entries {
		path := filepath.Join(p, e.Name)
		switch {
		case e.Dir && !knownDirs[e.Name]:
			for _, t := range transcript.DiscoverSessionDir(q.opts.Sources, path, q.opts.Warn) {
				q.add(t, true)
			}
		case !e.Dir:
			// Every file, not only new names: a rename over a known one
			// (a rewrite by tmp+rename) also changes the folder.
			t, err := transcript.StatTranscript(path)
			if err != nil {
				continue
			}
			if st := m.File(path); st == nil || st.Gone || !unchanged(st, t.Stat) || replaced(st, t.Stat) {
				q.add(t, st == nil)
			}
		}
	}
}

// sweepStart is what a full sweep records before it lists anything, so a
// change made while it runs is seen by the next run.
type sweepStart struct {
	state *freshstate.State
	now   time.Time
}

// startSweep records folder mtimes and how far history goes, then the
// caller discovers every transcript.
func startSweep(opts Options) *sweepStart {
	now := opts.now()
	s := &sweepStart{state: freshstate.New(opts.SourceList()), now: now}
	s.state.SweepNs = now.UnixNano()
	racy := func(mt int64) int64 {
		if now.Sub(time.Unix(0, mt)) < racyWindow {
			return 0
		}
		return mt
	}
	for _, root := range opts.Sources {
		mt, err := transcript.DirMtime(root)
		if err != nil {
			continue
		}
		projects := transcript.ProjectDirs(opts.Sources, root, func(string) {})
		if len(projects) == 1 && projects[0] == root {
			s.state.Dirs[root] = freshstate.Dir{MtimeNs: racy(mt)}
			continue
		}
		s.state.Dirs[root] = freshstate.Dir{Root: true, MtimeNs: racy(mt)}
		for _, p := range projects {
			if pm, err := transcript.DirMtime(p); err == nil {
				s.state.Dirs[p] = freshstate.Dir{MtimeNs: racy(pm)}
			}
		}
		if cfg := transcript.ConfigDir(root); cfg != "" {
			hp := filepath.Join(cfg, "history.jsonl")
			if id, err := record.StatID(hp); err == nil {
				if mark, err := transcript.HistoryEnd(hp, id.Size); err == nil {
					s.state.History[hp] = freshstate.History{Dev: id.Dev, Ino: id.Ino, Offset: mark.Offset, Tail: mark.Tail}
				}
			}
		}
	}
	s.noteAgents(opts.Agents, racy)
	return s
}

// keepFresh writes the state after a run that committed (or found the
// manifest current): hot entries take the manifest's stat of their file.
//
// liveDelta moves the count of live transcripts the quick check kept when
// the run read only the manifest entries it looked up.
func keepFresh(opts Options, m *manifest.Manifest, q *quick, sw *sweepStart, found []transcript.Transcript, liveDelta int) {
	var next *freshstate.State
	switch {
	case sw != nil:
		next = sw.state
		for _, t := range found {
			// Recently written, or left unread (the current session's,
			// one that failed to read): checked on every run.
			st := m.File(t.Path)
			if sw.now.Sub(time.Unix(0, t.Stat.MtimeNs)) <= opts.hotKeep() || st == nil || !unchanged(st, t.Stat) {
				next.Hot[t.Path] = unknownID
			}
		}
	case q != nil:
		next = q.next
	default:
		return
	}
	for path := range next.Hot {
		st := m.File(path)
		if st == nil || st.Gone {
			delete(next.Hot, path)
			continue
		}
		next.Hot[path] = record.FileID{Dev: st.Dev, Ino: st.Ino, Size: st.Size, MtimeNs: st.MtimeNs}
	}
	trimHot(next.Hot)
	next.Files = liveFiles(m, opts.Roots(), next.Files+liveDelta)
	id, err := opts.index().ManifestID()
	if err != nil {
		return // nothing committed yet: no state to keep
	}
	next.Manifest = id
	next.Forgotten = opts.index().TombstoneID()
	if err := freshstate.Write(opts.writer(), next); err != nil {
		opts.Warn(err.Error())
	}
}

// maxHot bounds the hot set: a tree whose files were all written lately
// (a copy, a restore, a generated corpus) would otherwise make every check
// a sweep. The most recently written stay; the others still have the
// signals (history, running sessions) and the backstop sweep.
const maxHot = 1024

func trimHot(hot map[string]record.FileID) {
	if len(hot) <= maxHot {
		return
	}
	paths := sortedHot(hot)
	// Newest first; a transcript never read (mtime 0 in the manifest: the
	// current session's, say) before all.
	key := func(p string) int64 {
		if hot[p].MtimeNs == 0 {
			return 1<<63 - 1
		}
		return hot[p].MtimeNs
	}
	slices.SortStableFunc(paths, func(a, b string) int { return -cmpInt(key(a), key(b)) })
	for _, p := range paths[maxHot:] {
		delete(hot, p)
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (o Options) now() time.Time {
	if o.Clock != nil {
		return o.Clock()
	}
	return time.Now()
}

func (o Options) sweepEvery() time.Duration {
	if o.SweepEvery > 0 {
		return o.SweepEvery
	}
	return DefaultSweepEvery
}

func (o Options) hotKeep() time.Duration { return HotKeep }

// readable reports whether dir can be listed.
func readable(dir string) bool {
	_, err := os.ReadDir(dir)
	return err == nil
}

// sortedKeysOf lists a set's members in order.
func sortedKeysOf(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
