package indexer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/indexer/freshstate"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/store/forget"
	"github.com/recall-dev/recall/transcript"
)

// Forgetting: `recall forget` removes rows from every file of the index on
// the user's explicit request, the one way rows of a transcript leave the
// archive short of `--rebuild --yes`. It is for good: the forget is kept
// as a rule in the tombstone (store/forgotten.go, hashes only), which
// every later reading of transcripts honours (a run, `--rebuild`, the
// recovery of a lost manifest, `--repair`, a transcript found under a new
// path), until `recall forget --undo` lifts it.

// ForgetSelector picks the rows to remove; every part given must match.
type ForgetSelector struct {
	Session string // a session id or a unique prefix of one
	// Project is an absolute path (that project and those inside it; "/"
	// is every project) or a fragment of project paths, as --project
	// means for a search (filter.ProjectMatches). A fragment is resolved
	// to the indexed projects it names when the forget runs.
	Project string
	Before  time.Time // rows written before this time
}

func (sel ForgetSelector) empty() bool { return sel == ForgetSelector{} }

// ForgetReport says what was (or, for a dry run, would be) removed.
type ForgetReport struct {
	Sessions []string
	Projects []string // the projects a --project names (a fragment: each it matched)
	Rows     int64
	// Sealed counts the transcripts never read again (a whole session or
	// project was forgotten), so that what is still on disk does not come
	// back.
	Sealed int
	DryRun bool
}

// String says it in a few lines.
func (r *ForgetReport) String() string {
	verb := "removed"
	if r.DryRun {
		verb = "would remove"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "forget: %s %d %s of %d %s", verb, r.Rows, pluralS(int(r.Rows), "row"), len(r.Sessions), pluralS(len(r.Sessions), "session"))
	for _, s := range r.Sessions {
		fmt.Fprintf(&b, "\n  %s", s)
	}
	if r.Sealed > 0 {
		fmt.Fprintf(&b, "\nforget: %d %s not read again while on disk", r.Sealed, pluralS(int(r.Sealed), "transcript"))
	}
	if !r.DryRun {
		b.WriteString("\nforget: kept for good (`recall index --rebuild` and repairs honour it); `recall forget --undo` with the same options takes it back")
	}
	return b.String()
}

// ErrNothingToForget is returned when the selector matches no row.
var ErrNothingToForget = errors.New("nothing to forget")

// Forget removes the rows sel picks from the index, durably, and for
// good. It first writes a rule to the tombstone (the forget's commit
// point: a forget killed after it is finished by the next index run),
// then compacts the index without the rows (applyForgotten), crash-safe
// like every commit. dryRun only counts.
func Forget(opts Options, sel ForgetSelector, dryRun bool) (*ForgetReport, error) {
	if sel.empty() {
		return nil, errors.New("forget: name a --session, a --project or a --before date")
	}
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	w, err := store.Open(opts.IndexDir).Warnings(opts.warnErr).WaitLock()
	if err != nil {
		return nil, err
	}
	defer w.Unlock()
	opts = opts.locked(w)
	m, err := loadOrRecover(opts)
	if err != nil {
		return nil, err
	}
	tomb, err := opts.index().Tombstone()
	if err != nil {
		return nil, err
	}
	if !dryRun {
		// Into the current format and in line with the rules so far
		// first, so that the one commit below holds both the rows
		// dropped and the counts that say so.
		if _, err := rederive(opts, m); err != nil {
			return nil, err
		}
		if _, err := applyForgotten(opts, m, tomb); err != nil {
			return nil, err
		}
	}
	m.LoadAll()
	if err := m.Err(); err != nil {
		return nil, err
	}
	if sel.Session, err = uniqueSession(m, sel.Session); err != nil {
		return nil, err
	}
	roots, err := projectRoots(m, sel.Project)
	if err != nil {
		return nil, err
	}
	p := &forgetPlan{sel: sel, roots: roots, before: sel.Before.UnixMilli(), already: tomb.Filter()}
	owners, err := opts.index().KeyOwners(m)
	if err != nil {
		return nil, err
	}
	p.readTranscripts(m, owners)
	if err := p.count(opts.IndexDir); err != nil {
		return nil, err
	}
	rep := p.report(m, dryRun)
	if rep.Rows == 0 {
		return rep, ErrNothingToForget
	}
	if dryRun {
		return rep, nil
	}
	if tomb == nil {
		tomb = forget.NewTombstone()
	}
	p.addRules(tomb, m)
	if err := opts.writer().WriteTombstone(tomb); err != nil {
		return nil, fmt.Errorf("forget: %w", err)
	}
	if _, err := applyForgotten(opts, m, tomb); err != nil {
		return nil, fmt.Errorf("forget: %w", err)
	}
	scrubHookLogs(opts, rep, p)
	return rep, nil
}

// forgetPlan is one forget: the selector resolved, and what it matches.
type forgetPlan struct {
	sel    ForgetSelector
	roots  []string // project roots; nil: any project
	before int64
	// already matches what earlier rules forget (nil: none), left out
	// of what this forget counts.
	already *forget.Filter
	counts  map[fileGen]int64
	rows    int64
	// sessions and msgs are per root (index into roots; 0 without roots).
	sessions map[string]bool
	msgs     []map[string]bool
	// held are the messages the selected transcripts still on disk hold
	// (by uuid, with the root of their transcript) that are theirs: a
	// message first written there but indexed under another session (a
	// fork or resume of it indexed first kept it) is the forgotten
	// session's text all the same, and goes with it; a copy they hold of
	// another session's message (they are the fork) stays that
	// session's.
	held map[string]int
}

// readTranscripts reads the selected transcripts still on disk for the
// uuids of the messages they hold that the selector forgets, but those
// owners (key → generation) says another session's transcript owns.
func (p *forgetPlan) readTranscripts(m *manifest.Manifest, owners map[uint64]uint32) {
	p.held = map[string]int{}
	if p.sel.Session == "" && p.roots == nil {
		return // a time alone selects the copies too: they keep their times
	}
	selected := map[uint32]bool{}
	for _, st := range m.Files() {
		if p.sel.Session == "" || st.Session == p.sel.Session {
			if p.roots == nil || p.rootOf(st.Project) >= 0 {
				selected[st.Gen] = true
			}
		}
	}
	copied := func(r *transcript.Extracted) bool {
		for _, k := range record.RowKeys(r.UUID, r.Text, r.Block) {
			if gen, ok := owners[k]; ok && !selected[gen] {
				return true
			}
		}
		return false
	}
	br := bufio.NewReaderSize(nil, transcript.ReadBufferSize)
	for path, st := range m.Files() {
		if p.sel.Session != "" && st.Session != p.sel.Session {
			continue
		}
		root := p.rootOf(st.Project)
		if st.Project == "" || root < 0 {
			continue
		}
		t, err := transcript.StatTranscript(path)
		if err != nil {
			continue // gone: its rows are all there is of it
		}
		if st.Session != "" {
			t.Session = st.Session
		}
		if st.Kind != "" {
			t.Kind = st.Kind // another agent's file: read by its format
		}
		res := readTranscript(transcript.Work{T: t, State: record.FileState{Path: path, Kind: st.Kind, Session: st.Session, Agent: st.Agent}}, "", br)
		for i := range res.Rows {
			if r := &res.Rows[i].Row; r.UUID != "" && p.matchRow(r) && !copied(&res.Rows[i]) {
				p.held[r.UUID] = root
			}
		}
	}
}

type fileGen struct {
	path string
	gen  uint32
}

// rootOf returns the index of the first root that holds project, -1 for
// none (0 when the forget names no project).
func (p *forgetPlan) rootOf(project string) int {
	if p.roots == nil {
		return 0
	}
	for i, r := range p.roots {
		if filter.InProject(project, r) {
			return i
		}
	}
	return -1
}

// matchRow is the selector's row test.
func (p *forgetPlan) matchRow(r *record.Row) bool {
	if p.sel.Session != "" && r.Session != p.sel.Session {
		return false
	}
	if p.rootOf(r.Project) < 0 {
		return false
	}
	if !p.sel.Before.IsZero() {
		t, ok := record.ParseTimestamp(r.Timestamp)
		return ok && t < p.before
	}
	return true
}

// matchesFile reports whether a whole transcript belongs to the selected
// session and project (a forget without --before).
func (p *forgetPlan) matchesFile(st *record.FileState) bool {
	if !p.sel.Before.IsZero() || (p.sel.Session != "" && st.Session != p.sel.Session) {
		return false
	}
	return p.roots == nil || st.Project != "" && p.rootOf(st.Project) >= 0
}

// count counts the live rows the forget matches that no earlier rule
// forgets, per transcript generation and in all, with their sessions
// and messages.
func (p *forgetPlan) count(dir string) error {
	snap, err := store.Open(dir).Snapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	p.counts, p.sessions = map[fileGen]int64{}, map[string]bool{}
	p.msgs = make([]map[string]bool, max(len(p.roots), 1))
	for i := range p.msgs {
		p.msgs[i] = map[string]bool{}
	}
	return snap.EachRow(func(r *record.Row) error {
		if snap.Dead(r.Gen) || p.already.MatchRow(r) {
			return nil
		}
		root, held := p.held[r.UUID]
		if !p.matchRow(r) {
			if r.UUID == "" || !held {
				return nil
			}
		} else {
			root = max(p.rootOf(r.Project), 0)
		}
		p.counts[fileGen{r.Source, r.Gen}]++
		p.rows++
		p.sessions[r.Session] = true
		if r.UUID != "" {
			p.msgs[root][r.UUID] = true
		}
		return nil
	})
}

func (p *forgetPlan) report(m *manifest.Manifest, dryRun bool) *ForgetReport {
	rep := &ForgetReport{Rows: p.rows, DryRun: dryRun, Projects: p.roots}
	for s := range p.sessions {
		rep.Sessions = append(rep.Sessions, s)
	}
	slices.Sort(rep.Sessions)
	for _, st := range m.Files() {
		if p.matchesFile(st) {
			rep.Sealed++
		}
	}
	return rep
}

// addRules adds the forget's rules to the tombstone: one per project
// root (one in all without --project), each with the transcripts it
// keeps out or empties and the messages it removes.
func (p *forgetPlan) addRules(t *forget.Tombstone, m *manifest.Manifest) {
	now := time.Now().UnixNano()
	rules := make([]*forget.Rule, max(len(p.roots), 1))
	for i := range rules {
		r := &forget.Rule{Created: now}
		if p.sel.Session != "" {
			r.Session = t.HashSession(p.sel.Session)
		}
		if p.roots != nil {
			r.Project = t.HashProject(p.roots[i])
		}
		if !p.sel.Before.IsZero() {
			r.Before = p.before
		}
		rules[i] = t.AddRule(r)
		if p.sel.Session != "" || p.roots != nil {
			// Copies of these messages in other sessions (a fork, a
			// resume) go with them; a time alone selects copies too.
			for u := range p.msgs[i] {
				r.Msgs[t.HashUUID(u)] = true
			}
		}
	}
	for path, st := range m.Files() {
		i := 0
		if p.roots != nil {
			if i = p.rootOf(st.Project); i < 0 {
				continue
			}
		}
		n := p.counts[fileGen{path, st.Gen}]
		switch {
		case p.matchesFile(st):
			t.SealPath(rules[i], path, forget.Seal{Offset: -1})
		case n > 0 && n == st.Rows:
			// Every row of it is forgotten (a time range): read on
			// from where it was, if it grows.
			t.SealPath(rules[i], path, forget.Seal{Offset: st.Offset, Lines: st.Lines, Tail: st.Tail})
		case n > 0:
			t.Touch(rules[i], path)
		}
	}
}

// applied is what applyForgotten did.
type applied struct {
	Rows    int64 // rows removed
	Removed int   // transcripts whose manifest entry went
	Reread  int   // transcripts read again for a lifted rule
}

// applyForgotten makes the index agree with the tombstone, when the
// manifest was last made to agree with an older one (ForgetSerial): a
// forget (this one, or one killed after writing its rule), an undo. The
// transcripts of lifted rules that are still on disk get a new
// generation read from the start by the next run; the rows the rules in
// force forget, and the rows of the transcripts they keep out, leave
// every file by a compaction, with their message identities; the
// manifest entries of the transcripts they keep out or empty go (a
// checkpoint), and so does the freshness state, whose next sweep finds
// what a lifted rule let back in. Then lifted rules leave the tombstone.
func applyForgotten(opts Options, m *manifest.Manifest, tomb *forget.Tombstone) (*applied, error) {
	a := &applied{}
	if tomb == nil || tomb.Serial == m.ForgetSerial {
		return a, nil
	}
	m.LoadAll()
	if err := m.Err(); err != nil {
		return nil, err
	}
	for _, r := range tomb.Rules {
		if !r.Lifted {
			continue
		}
		for path, st := range m.Files() {
			if r.Touched[tomb.HashPath(path)] && !st.Gone && st.Verdict == record.VerdictIndexed {
				if _, err := transcript.StatFile(path); err == nil {
					readAgain(m, st)
					a.Reread++
				}
			}
		}
	}
	f := tomb.Filter()
	counts, msgs, err := countMatching(opts.IndexDir, f)
	if err != nil {
		return nil, err
	}
	removed := map[string]bool{}
	dropGens := map[uint32]bool{}
	partial := map[uint32]bool{}
	for path, st := range m.Files() {
		n := counts[fileGen{path, st.Gen}]
		seal, sealed := f.Sealed(path)
		switch {
		case sealed && seal.Offset < 0, f.WholeRule(st.Session, st.Project) != nil,
			sealed && n > 0 && n == st.Rows:
			removed[path] = true
			dropGens[st.Gen] = true
			a.Rows += st.Rows
		case n > 0:
			st.Rows -= n
			partial[st.Gen] = true
			a.Rows += n
		}
	}
	for path := range removed {
		m.RemoveFile(path)
	}
	a.Removed = len(removed)
	m.ForgetSerial = tomb.Serial
	if a.Rows > 0 || len(removed) > 0 {
		keys, err := opts.index().ForgottenKeys(m, partial, msgs)
		if err != nil {
			return nil, err
		}
		drop := func(r *record.Row) bool { return removed[r.Source] || f.MatchRow(r) }
		dropKey := func(key uint64, gen uint32) bool { return dropGens[gen] || keys[key] }
		if err := opts.writer().CompactDropping(m, drop, dropKey); err != nil {
			return nil, err
		}
	} else if err := opts.writer().CommitManifest(m); err != nil {
		return nil, err
	}
	if tomb.DropLifted() {
		if err := opts.writer().WriteTombstone(tomb); err != nil {
			return nil, err
		}
	}
	if err := freshstate.Remove(opts.writer()); err != nil {
		opts.Warn(err.Error())
	}
	return a, nil
}

// readAgain gives a transcript a new generation read from its start by
// the next run; the rows of the old one are hidden and compacted away.
func readAgain(m *manifest.Manifest, st *record.FileState) {
	m.Dead[st.Gen] += st.Rows
	st.Gen, m.NextGen = m.NextGen, m.NextGen+1
	st.Offset, st.Lines, st.Rows, st.Size, st.MtimeNs = 0, 0, 0, 0, 0
	st.Tail = record.Fingerprint{}
}

// countMatching counts the live rows f forgets per transcript generation,
// with the uuids of those messages.
func countMatching(dir string, f *forget.Filter) (map[fileGen]int64, store.MessageRows, error) {
	counts, msgs := map[fileGen]int64{}, store.MessageRows{}
	if f == nil {
		return counts, msgs, nil
	}
	snap, err := store.Open(dir).Snapshot()
	if err != nil {
		return nil, nil, err
	}
	defer snap.Close()
	err = snap.EachRow(func(r *record.Row) error {
		if snap.Dead(r.Gen) || !f.MatchRow(r) {
			return nil
		}
		counts[fileGen{r.Source, r.Gen}]++
		msgs.Add(r)
		return nil
	})
	return counts, msgs, err
}

// uniqueSession resolves a session id prefix against the indexed
// sessions: a removal must name exactly one.
func uniqueSession(m *manifest.Manifest, prefix string) (string, error) {
	if prefix == "" {
		return "", nil
	}
	found := map[string]bool{}
	for _, st := range m.Files() {
		if record.SessionHasPrefix(st.Session, prefix) {
			if st.Session == prefix || record.SessionIDOf(st.Session) == prefix {
				return st.Session, nil
			}
			found[st.Session] = true
		}
	}
	ids := make([]string, 0, len(found))
	for id := range found {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("forget: no indexed session starts with %q", prefix)
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("forget: %q names %d sessions (%s); give more of the id", prefix, len(ids), strings.Join(ids[:min(len(ids), 5)], ", "))
}

// projectRoots resolves a --project value as a search does
// (filter.ProjectMatches): an absolute path is itself, "/" included
// (every project); a fragment is each indexed project it names. nil
// without --project.
func projectRoots(m *manifest.Manifest, project string) ([]string, error) {
	if project == "" {
		return nil, nil
	}
	if filepath.IsAbs(project) {
		return []string{project}, nil
	}
	found := map[string]bool{}
	for _, st := range m.Files() {
		if st.Project != "" && filter.ProjectMatches(st.Project, []string{project}) {
			found[st.Project] = true
		}
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("%w: no indexed project path contains %q", ErrNothingToForget, project)
	}
	roots := make([]string, 0, len(found))
	for p := range found {
		roots = append(roots, p)
	}
	sort.Strings(roots)
	// A project inside another one named is held by that one's rule.
	var out []string
	for _, r := range roots {
		if len(out) == 0 || !filter.InProject(r, out[len(out)-1]) {
			out = append(out, r)
		}
	}
	return out, nil
}

// UndoSelector picks the rules `recall forget --undo` lifts: each part
// given must be the rule's (a rule naming no session is not lifted by
// --session); All lifts every rule.
type UndoSelector struct {
	Session string // an exact session id, or a prefix of the id of a transcript on disk
	Project string // an absolute path
	Before  time.Time
	All     bool
}

// UndoReport says what an undo lifted.
type UndoReport struct {
	Rules  int
	Reread int // transcripts read again from their start by the next run
	DryRun bool
}

func (r *UndoReport) String() string {
	if r.DryRun {
		return fmt.Sprintf("forget --undo: would take back %d %s", r.Rules, pluralS(r.Rules, "forget"))
	}
	return fmt.Sprintf("forget --undo: took back %d %s; the next index run reads their transcripts again while they exist (%d read again from the start)",
		r.Rules, pluralS(r.Rules, "forget"), r.Reread)
}

// Undo lifts the rules sel picks: the next index run (a sweep) reads
// their transcripts still on disk again. Rows of transcripts that are
// gone cannot come back.
func Undo(opts Options, sel UndoSelector, dryRun bool) (*UndoReport, error) {
	if sel == (UndoSelector{}) {
		return nil, errors.New("forget --undo: name the --session, --project or --before of the forget to take back, or --all")
	}
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	w, err := store.Open(opts.IndexDir).Warnings(opts.warnErr).WaitLock()
	if err != nil {
		return nil, err
	}
	defer w.Unlock()
	opts = opts.locked(w)
	tomb, err := opts.index().Tombstone()
	if err != nil {
		return nil, err
	}
	if tomb == nil {
		return &UndoReport{DryRun: dryRun}, ErrNothingToForget
	}
	pick, err := undoPick(tomb, sel, opts.Sources)
	if err != nil {
		return nil, err
	}
	rep := &UndoReport{DryRun: dryRun}
	for _, r := range tomb.Active() {
		if pick(r) {
			rep.Rules++
		}
	}
	if rep.Rules == 0 {
		return rep, ErrNothingToForget
	}
	if dryRun {
		return rep, nil
	}
	m, err := loadOrRecover(opts)
	if err != nil {
		return nil, err
	}
	if _, err := applyForgotten(opts, m, tomb); err != nil { // what is pending first
		return nil, err
	}
	tomb.Lift(pick)
	if err := opts.writer().WriteTombstone(tomb); err != nil {
		return nil, err
	}
	a, err := applyForgotten(opts, m, tomb)
	if err != nil {
		return nil, err
	}
	rep.Reread = a.Reread
	return rep, nil
}

// undoPick is the rule test of an undo selector. A session prefix is
// resolved against the session ids of the transcripts on disk that a
// rule names (the tombstone holds no id).
func undoPick(t *forget.Tombstone, sel UndoSelector, sources []string) (func(*forget.Rule) bool, error) {
	if sel.All {
		return func(*forget.Rule) bool { return true }, nil
	}
	var session, project forget.Hash
	if sel.Session != "" {
		named := map[forget.Hash]bool{}
		for _, r := range t.Active() {
			named[r.Session] = true
		}
		ids := map[string]bool{}
		if named[t.HashSession(sel.Session)] {
			ids[sel.Session] = true
		} else {
			for _, tr := range transcript.Discover(sources, func(string) {}) {
				if tr.Session != "" && record.SessionHasPrefix(tr.Session, sel.Session) && named[t.HashSession(tr.Session)] {
					ids[tr.Session] = true
				}
			}
		}
		switch len(ids) {
		case 0:
			return nil, fmt.Errorf("%w: no forget names session %q (give the whole id if its transcript is gone)", ErrNothingToForget, sel.Session)
		case 1:
		default:
			return nil, fmt.Errorf("forget --undo: %q names %d forgotten sessions; give more of the id", sel.Session, len(ids))
		}
		for id := range ids {
			session = t.HashSession(id)
		}
	}
	if sel.Project != "" {
		if !filepath.IsAbs(sel.Project) {
			return nil, fmt.Errorf("forget --undo --project %q: give the project's path (a forgotten project is known only by it)", sel.Project)
		}
		project = t.HashProject(sel.Project)
	}
	before := sel.Before.UnixMilli()
	return func(r *forget.Rule) bool {
		return (sel.Session == "" || r.Session == session) &&
			(sel.Project == "" || r.Project == project) &&
			(sel.Before.IsZero() || r.Before == before)
	}, nil
}

// scrubHookLogs takes out of hook.log (and the one set aside) the lines
// that name a forgotten session, transcript or project: the hook logs a
// line per call with its session id, and the indexers it starts write
// warnings that name transcripts.
func scrubHookLogs(opts Options, rep *ForgetReport, p *forgetPlan) {
	var needles [][]byte
	for _, s := range rep.Sessions {
		needles = append(needles, []byte(s))
	}
	if p.sel.Before.IsZero() {
		for _, r := range p.roots {
			if r != "/" {
				needles = append(needles, []byte(r))
			}
		}
	}
	if len(needles) == 0 {
		return
	}
	for _, name := range []string{"hook.log", "hook.log.1"} {
		path := filepath.Join(opts.IndexDir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var out []byte
		for line := range bytes.Lines(data) {
			if !slices.ContainsFunc(needles, func(n []byte) bool { return bytes.Contains(line, n) }) {
				out = append(out, line...)
			}
		}
		if len(out) != len(data) {
			if err := os.WriteFile(path, out, 0o600); err != nil {
				opts.Warn(err.Error())
			}
		}
	}
}

// migrateForgotten turns the transcripts an older recall's forget sealed
// in the manifest (VerdictForgotten entries, which kept their session id
// and path) into rules of the tombstone, one per session: the next
// applyForgotten removes the entries. It looks only when the manifest is
// read whole (a sweep), and returns the tombstone to apply.
func migrateForgotten(opts Options, m *manifest.Manifest, tomb *forget.Tombstone) (*forget.Tombstone, error) {
	if m.Partial() {
		return tomb, nil
	}
	rules := map[string][]string{}
	for path, st := range m.Files() {
		if st.Verdict == record.VerdictForgotten && st.Session != "" {
			rules[st.Session] = append(rules[st.Session], path)
		}
	}
	if len(rules) == 0 {
		return tomb, nil
	}
	if tomb == nil {
		tomb = forget.NewTombstone()
	}
	f := tomb.Filter()
	for session, paths := range rules {
		r := f.WholeRule(session, "")
		if r == nil {
			r = tomb.AddRule(&forget.Rule{Created: time.Now().UnixNano(), Session: tomb.HashSession(session)})
		} else {
			tomb.Serial++ // the entries must go: applyForgotten runs
		}
		for _, p := range paths {
			tomb.SealPath(r, p, forget.Seal{Offset: -1})
		}
	}
	if err := opts.writer().WriteTombstone(tomb); err != nil {
		return nil, err
	}
	return tomb, nil
}
