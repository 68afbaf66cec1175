package indexer

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/recall-dev/recall/store"
)

// Forgetting: `recall forget` removes rows from every file of the index on
// the user's explicit request, the one way rows of a transcript leave the
// archive short of `--rebuild --yes`.

// ForgetSelector picks the rows to remove; every part given must match.
type ForgetSelector struct {
	Session string    // a session id or a unique prefix of one
	Project string    // an absolute project path: that project and those inside it
	Before  time.Time // rows written before this time
}

// ForgetReport says what was (or, for a dry run, would be) removed.
type ForgetReport struct {
	Sessions []string
	Rows     int64
	// Sealed are the transcripts never read again (a whole session or
	// project was forgotten), so that what is still on disk does not come
	// back at the next run.
	Sealed []string
	DryRun bool
}

// String says it in a few lines.
func (r *ForgetReport) String() string {
	verb := "removed"
	if r.DryRun {
		verb = "would remove"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "forget: %s %d rows of %d sessions", verb, r.Rows, len(r.Sessions))
	for _, s := range r.Sessions {
		fmt.Fprintf(&b, "\n  %s", s)
	}
	if len(r.Sealed) > 0 {
		fmt.Fprintf(&b, "\nforget: %d transcripts are not read again while they stay on disk", len(r.Sealed))
	}
	return b.String()
}

// ErrNothingToForget is returned when the selector matches no row.
var ErrNothingToForget = errors.New("nothing to forget")

// Forget removes the rows sel picks from the index, durably: the index is
// compacted without them (store.CompactDropping), crash-safe like every
// commit. A session or project forgotten whole is sealed: its transcripts
// are not read again. dryRun only counts.
func Forget(opts Options, sel ForgetSelector, dryRun bool) (*ForgetReport, error) {
	if sel == (ForgetSelector{}) {
		return nil, errors.New("forget: name a --session, a --project or a --before date")
	}
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	l, err := store.WaitLock(opts.IndexDir)
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	m, err := loadOrRecover(opts)
	if err != nil {
		return nil, err
	}
	if !dryRun {
		// Into the current format first, so the one commit below holds
		// both the rows dropped and the counts that say so.
		if _, err := rederive(opts, m); err != nil {
			return nil, err
		}
	}
	if sel.Session, err = uniqueSession(m, sel.Session); err != nil {
		return nil, err
	}
	drop := sel.matcher()
	counts, rep, err := countForgotten(opts.IndexDir, drop)
	if err != nil {
		return nil, err
	}
	rep.DryRun = dryRun
	if rep.Rows == 0 {
		return rep, ErrNothingToForget
	}
	sealWhole := sel.Before.IsZero()
	for path, st := range m.Files {
		st.Rows -= counts[fileGen{path, st.Gen}]
		if sealWhole && sel.matchesFile(st) {
			rep.Sealed = append(rep.Sealed, path)
			if !dryRun {
				st.Verdict = store.VerdictForgotten
			}
		}
	}
	sort.Strings(rep.Sealed)
	if dryRun {
		return rep, nil
	}
	if err := store.CompactDropping(opts.IndexDir, m, opts.Warn, drop); err != nil {
		return nil, fmt.Errorf("forget: %w", err)
	}
	return rep, nil
}

type fileGen struct {
	path string
	gen  uint32
}

// countForgotten counts the live rows drop accepts, per transcript
// generation and in all, and names their sessions.
func countForgotten(dir string, drop func(*store.Row) bool) (map[fileGen]int64, *ForgetReport, error) {
	snap, err := store.OpenSnapshot(dir)
	if err != nil {
		return nil, nil, err
	}
	defer snap.Close()
	counts := map[fileGen]int64{}
	rep := &ForgetReport{}
	sessions := map[string]bool{}
	err = snap.EachRow(func(r *store.Row) error {
		if snap.Dead(r.Gen) || !drop(r) {
			return nil
		}
		counts[fileGen{r.Source, r.Gen}]++
		rep.Rows++
		sessions[r.Session] = true
		return nil
	})
	for s := range sessions {
		rep.Sessions = append(rep.Sessions, s)
	}
	slices.Sort(rep.Sessions)
	return counts, rep, err
}

// uniqueSession resolves a session id prefix against the indexed
// sessions: a removal must name exactly one.
func uniqueSession(m *store.Manifest, prefix string) (string, error) {
	if prefix == "" {
		return "", nil
	}
	found := map[string]bool{}
	for _, st := range m.Files {
		if strings.HasPrefix(st.Session, prefix) {
			found[st.Session] = true
		}
	}
	if found[prefix] {
		return prefix, nil
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

// matcher returns the row test of the selector.
func (sel ForgetSelector) matcher() func(*store.Row) bool {
	before := sel.Before.UnixMilli()
	return func(r *store.Row) bool {
		if sel.Session != "" && r.Session != sel.Session {
			return false
		}
		if sel.Project != "" && !inProject(r.Project, sel.Project) {
			return false
		}
		if !sel.Before.IsZero() {
			t, ok := store.ParseTimestamp(r.Timestamp)
			return ok && t < before
		}
		return true
	}
}

// matchesFile reports whether a whole transcript belongs to the selected
// session or project.
func (sel ForgetSelector) matchesFile(st *store.FileState) bool {
	return (sel.Session == "" || st.Session == sel.Session) && (sel.Project == "" || inProject(st.Project, sel.Project))
}

// inProject reports whether path is root or inside it.
func inProject(path, root string) bool {
	root = strings.TrimSuffix(root, "/")
	return root != "" && (path == root || strings.HasPrefix(path, root+"/"))
}
