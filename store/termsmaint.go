package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/store/terms"
)

// freshStateName is the indexer's freshness state (indexer/freshstate),
// whose temporary files the clean-up here removes too.
const freshStateName = "fresh-v2.tsv"

// crashTemp reports a temp file of an index file (atomicfile's
// ".<name>.*.tmp"): the writer lock is held whenever one is written, so
// a writer that holds it and finds one finds what a crash left behind.
func crashTemp(name string) bool {
	if !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".tmp") {
		return false
	}
	for _, base := range []string{"terms-", manifest.Name + ".", manifest.JournalName + ".", "keyidx-", freshStateName + ".", RowsLinkName + "."} {
		if strings.HasPrefix(name[1:], base) {
			return true
		}
	}
	return false
}

// removeStaleTerms deletes the segments of sequence seq that reach past
// its committed blocks, and the temp files a crash left behind (of term
// segments, checkpoints, journals, key indexes, freshness states, the
// rows link).
func removeStaleTerms(dir string, seq, blocks int) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read index dir: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		r, ok := terms.ParseName(name)
		stale := ok && r.Seq == seq && r.End > blocks
		if stale || crashTemp(name) {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("remove a stale term segment: %w", err) // the error names it
			}
		}
	}
	return nil
}

// Merging of small segments. Every run that adds rows ends with a segment
// of its own, often of a few KB (a hook run after one reply), so small
// segments are merged, a tier at a time: when the last mergeFanIn
// segments are all of one tier, they are rebuilt from their blocks as one.
// A tier is four times the one below, so each row is rebuilt about once
// per tier; segments of maxMergeBytes or more (those of a first run) are
// never merged.
const (
	mergeFanIn     = 4
	firstTierBytes = 1 << 20
	maxMergeBytes  = termsGroupBytes
)

// tier is the merge tier of a segment of raw bytes; -1 for segments that
// are never merged.
func tier(raw int64) int {
	if raw >= maxMergeBytes {
		return -1
	}
	t := 0
	for limit := int64(firstTierBytes); raw >= limit; limit *= 4 {
		t++
	}
	return t
}

// termsCheck is how closely EnsureTerms checks the segments it keeps.
type termsCheck int

const (
	// checkHeaders reads each segment's header (format, text rules,
	// blocks, section bounds): what a quick run, which must not grow with
	// the index, can afford.
	checkHeaders termsCheck = iota
	// checkOpen opens each segment as a search does (header, page
	// checksum table, keys): sweeps and repairs.
	checkOpen
)

// ensureTerms completes the term index of the committed snapshot: it
// builds segments for blocks no segment covers (an index written before
// the term index existed, or a run that failed to write one), rebuilds
// those that fail check, merges small segments, and removes segments a
// merge replaced. Failures are warnings: searches fall back to the rows.
func ensureTerms(dir string, m *manifest.Manifest, check termsCheck, warn func(error)) {
	if err := completeTerms(dir, m, check); err != nil && warn != nil {
		warn(termsError(err))
	}
}

func completeTerms(dir string, m *manifest.Manifest, check termsCheck) error {
	refs, err := terms.Refs(dir)
	if err != nil {
		return err
	}
	blocks := m.BlockCount()
	if refs, err = dropDamaged(dir, refs, m.Seq, blocks, check); err != nil {
		return err
	}
	cover, covered := terms.Cover(refs, m.Seq, blocks)
	merge, err := mergeStart(dir, cover)
	if err != nil {
		return err
	}
	if covered == blocks && merge < 0 {
		return viewAndRemoveUnused(dir, m, refs, cover)
	}
	snap, err := snapshot.Of(dir, m)
	if err != nil {
		return err
	}
	defer snap.Close()
	if covered < blocks {
		built, err := buildTerms(dir, snap, covered, blocks)
		if err != nil {
			return err
		}
		cover = append(cover, built...)
	}
	for {
		if merge, err = mergeStart(dir, cover); err != nil || merge < 0 {
			break
		}
		merged, err := buildTerms(dir, snap, cover[merge].First, cover[len(cover)-1].End)
		if err != nil {
			return err
		}
		cover = append(cover[:merge], merged...)
	}
	if err != nil {
		return err
	}
	refs, err = terms.Refs(dir)
	if err != nil {
		return err
	}
	return viewAndRemoveUnused(dir, m, refs, cover)
}

// viewAndRemoveUnused writes the view of the complete cover, then
// removes the segments it replaced: in this order, a reader of the view
// never finds a segment it names removed by this run.
func viewAndRemoveUnused(dir string, m *manifest.Manifest, refs, cover []terms.Ref) error {
	dead := make([]uint32, 0, len(m.Dead))
	for g := range m.Dead {
		dead = append(dead, g)
	}
	if err := terms.WriteView(dir, cover, dead); err != nil {
		return fmt.Errorf("write the term index view: %w", err)
	}
	if err := removeUnused(dir, refs, cover); err != nil {
		return err
	}
	if err := updateLexicon(dir, cover, lexiconMinBytes); err != nil {
		return fmt.Errorf("write the term lexicon: %w", err)
	}
	return nil
}

// lexiconMinBytes is the least raw bytes of a segment the term lexicon
// covers: the third merge tier's start. Every segment the lexicon leaves
// out costs the prompt hook an open and a lookup of each word (some 50
// and 10 µs), and the tiers below this one hold at most three segments
// each (mergeFanIn - 1), a few KB to 4 MiB of rows: at most six small
// segments and the last. A segment of this size or more is merged again
// after some 4 to 64 MiB of new rows (or never, from 32 MiB), and the
// lexicon is rewritten then (0.2 s at 1 GB, 0.4-0.6 s at 4 GB): a few
// times a day for a busy user, in the index update each hook starts.
const lexiconMinBytes = 4 * firstTierBytes

// updateLexicon rewrites the term lexicon (terms.Lexicon: the prompt
// hook's lookups) when the segments it covers are no longer all in the
// cover, or when a segment of minRaw raw bytes or more is not among them.
// The cover's last segment is left out until another follows it: it is
// the one later runs grow. A run that changes nothing reads the
// lexicon's head and the headers of the few small segments it leaves
// out.
func updateLexicon(dir string, cover []terms.Ref, minRaw int64) error {
	covered := map[string]bool{}
	for _, name := range terms.LexiconSegments(dir) {
		covered[name] = true
	}
	inCover := 0
	var keep []terms.Ref
	grown := false
	for i, r := range cover {
		if covered[r.Name] {
			keep = append(keep, r)
			inCover++
			continue
		}
		if i == len(cover)-1 {
			break
		}
		raw, err := terms.ReadRawBytes(dir, r)
		if err != nil {
			return err
		}
		if raw >= minRaw {
			keep = append(keep, r)
			grown = true
		}
	}
	if !grown && inCover == len(covered) {
		return nil
	}
	// The run that seals segments has usually just built them: its heap
	// is the largest it will be, and the lexicon's build (its tables and
	// the segments' pages it passes) would come on top of it (a first
	// index of 4 GB peaked at 264 MB against 210 without). What the build
	// freed goes back to the system first.
	debug.FreeOSMemory()
	segs := make([]*terms.Segment, 0, len(keep))
	defer func() {
		for _, s := range segs {
			s.Close()
		}
	}()
	for _, r := range keep {
		s, err := terms.Open(dir, r)
		if err != nil {
			return err
		}
		segs = append(segs, s)
	}
	return terms.WriteLexicon(dir, segs)
}

// dropDamaged removes the segments of the cover that fail check (a
// damaged disk, a file cut short, other text rules), so that their blocks
// are indexed again; it returns the refs left. Opening checks the header,
// every section's bounds and the keys; postings are checked as searches
// read them, and one that does not decode makes the search read the rows.
func dropDamaged(dir string, refs []terms.Ref, seq, blocks int, check termsCheck) ([]terms.Ref, error) {
	cover, _ := terms.Cover(refs, seq, blocks)
	bad := map[string]bool{}
	for _, r := range cover {
		err := checkSegment(dir, r, check)
		if err == nil {
			continue
		}
		if !errors.Is(err, terms.ErrDamaged) && !errors.Is(err, terms.ErrStale) {
			return nil, err
		}
		if err := os.Remove(r.Path(dir)); err != nil && !os.IsNotExist(err) {
			return nil, fmt.Errorf("remove a damaged term segment: %w", err)
		}
		bad[r.Name] = true
	}
	if len(bad) == 0 {
		return refs, nil
	}
	// Its blocks are indexed again under the same name: a lexicon that
	// covered it is rewritten (updateLexicon matches segments by name).
	if slices.ContainsFunc(terms.LexiconSegments(dir), func(name string) bool { return bad[name] }) {
		if err := os.Remove(filepath.Join(dir, terms.LexiconFileName)); err != nil && !os.IsNotExist(err) {
			return nil, fmt.Errorf("remove the term lexicon: %w", err)
		}
	}
	return slices.DeleteFunc(refs, func(r terms.Ref) bool { return bad[r.Name] }), nil
}

// checkSegment checks the segment of r as check says.
func checkSegment(dir string, r terms.Ref, check termsCheck) error {
	if check == checkHeaders {
		return terms.CheckHeader(dir, r)
	}
	seg, err := terms.Open(dir, r)
	if err == nil {
		seg.Close()
	}
	return err
}

// mergeStart returns where the tail of cover to merge starts: the last
// mergeFanIn segments if they share a tier, or -1.
func mergeStart(dir string, cover []terms.Ref) (int, error) {
	if len(cover) < mergeFanIn {
		return -1, nil
	}
	at := len(cover) - mergeFanIn
	want := -2
	for _, r := range cover[at:] {
		raw, err := terms.ReadRawBytes(dir, r)
		if err != nil {
			return -1, err
		}
		t := tier(raw)
		if t < 0 || want != -2 && t != want {
			return -1, nil
		}
		want = t
	}
	return at, nil
}

// buildTerms builds segments for blocks [first, end) from the rows file,
// one per termsGroupBytes of raw rows.
func buildTerms(dir string, snap *snapshot.Snapshot, first, end int) ([]terms.Ref, error) {
	dec, err := snapshot.NewDecoder()
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	var out []terms.Ref
	var raw, scratch []byte
	stems, chunks := terms.NewStemCache(), terms.NewChunkPool()
	for first < end {
		b := terms.NewBuilder()
		b.UseStems(stems)
		b.UseChunks(chunks)
		size, at := 0, first
		for ; at < end && (at == first || size < termsGroupBytes); at++ {
			raw, scratch, err = snap.ReadBlock(dec, &snap.Blocks[at], raw, scratch)
			if err != nil {
				return out, err
			}
			addBlockRows(b, raw)
			size += len(raw)
		}
		ref, err := b.WriteFile(dir, snap.M.Seq, first, at)
		b.Release()
		if err != nil {
			return out, err
		}
		out = append(out, ref)
		first = at
	}
	return out, nil
}

// removeUnused deletes the segments of the cover's sequence that the
// cover does not use: those a merge replaced.
func removeUnused(dir string, refs, cover []terms.Ref) error {
	if len(cover) == 0 {
		return nil
	}
	used := make(map[string]bool, len(cover))
	for _, r := range cover {
		used[r.Name] = true
	}
	for _, r := range refs {
		if r.Seq == cover[0].Seq && !used[r.Name] {
			if err := os.Remove(r.Path(dir)); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("remove a merged term segment: %w", err)
			}
		}
	}
	return nil
}
