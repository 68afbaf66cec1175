package store

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/recall-dev/recall/internal/parallel"
	"github.com/recall-dev/recall/internal/tsvfield"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store/terms"
	"github.com/recall-dev/recall/textrules"
)

// termsGroupBytes is the raw TSV a term-index segment covers when built
// during a run: large enough that a query scans few vocabularies, small
// enough that a segment's builder stays a few tens of MB.
const termsGroupBytes = 32 << 20

// termsPipeline builds term-index segments from the blocks the encoder
// writes, a group of blocks per segment, groups on all cores. Segments are
// derived data: a failure here loses no rows, a search falls back to
// reading the rows, and the next run builds what is missing.
type termsPipeline struct {
	dir   string
	seq   int
	done  func(raw []byte, rows []terms.Row) // takes back a block's buffers once indexed
	slots chan struct{}                      // one token per group being built
	stems *terms.StemCache                   // the word-form keys of the run's vocabularies
	// chunks holds the posting-entry chunks of finished segments for the
	// next ones
	chunks *terms.ChunkPool
	open   *termsGroup
	wg     sync.WaitGroup
	mu     sync.Mutex
	err    error
}

// termsGroup is one segment being built from blocks [first, end).
type termsGroup struct {
	first, end int
	bytes      int
	blocks     chan termsBlock
}

// termsBlock is one block for the term index: its raw TSV, and its rows
// as the term index reads them when the writer had them at hand (rows),
// else nil and they are read back from raw.
type termsBlock struct {
	raw  []byte
	rows []terms.Row
}

func newTermsPipeline(dir string, seq int, done func(raw []byte, rows []terms.Row)) *termsPipeline {
	return &termsPipeline{dir: dir, seq: seq, done: done, slots: make(chan struct{}, runtime.GOMAXPROCS(0)), stems: terms.NewStemCache(), chunks: terms.NewChunkPool()}
}

// add takes block number block's raw TSV and, if not nil, its rows as
// termRow made them; blocks come in order.
func (t *termsPipeline) add(block int, raw []byte, rows []terms.Row) {
	if t.open != nil && t.open.end != block {
		t.closeGroup() // a gap cannot happen; never build across one
	}
	if t.open == nil {
		t.startGroup(block)
	}
	g := t.open
	g.blocks <- termsBlock{raw: raw, rows: rows}
	g.end = block + 1
	g.bytes += len(raw)
	if g.bytes >= termsGroupBytes {
		t.closeGroup()
	}
}

func (t *termsPipeline) startGroup(first int) {
	t.slots <- struct{}{}
	// The channel holds a whole group, so the writer never waits for a
	// builder and the next group's builder starts on another core.
	g := &termsGroup{first: first, end: first, blocks: make(chan termsBlock, termsGroupBytes/blockTarget+1)}
	t.open = g
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		defer func() { <-t.slots }()
		defer func() {
			if err := parallel.Recovered(recover(), nil); err != nil {
				t.fail(fmt.Errorf("build term index: %w", err))
				for blk := range g.blocks { // the writer never waits on a failed builder
					t.done(blk.raw, blk.rows)
				}
			}
		}()
		b := terms.NewBuilder()
		b.UseStems(t.stems)
		b.UseChunks(t.chunks)
		for blk := range g.blocks {
			if blk.rows != nil {
				b.AddRawBytes(len(blk.raw))
				for i := range blk.rows {
					b.Add(&blk.rows[i])
				}
				clear(blk.rows) // the texts are garbage now
			} else {
				addBlockRows(b, blk.raw)
			}
			t.done(blk.raw, blk.rows)
		}
		if _, err := b.WriteFile(t.dir, t.seq, g.first, g.end); err != nil {
			t.fail(err)
		}
		b.Release()
	}()
}

func (t *termsPipeline) closeGroup() {
	if t.open != nil {
		close(t.open.blocks)
		t.open = nil
	}
}

func (t *termsPipeline) fail(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		t.err = err
	}
}

// flush closes the open group and waits until every segment is written;
// it returns the first error since the last flush.
func (t *termsPipeline) flush() error {
	t.closeGroup()
	t.wg.Wait()
	t.mu.Lock()
	defer t.mu.Unlock()
	err := t.err
	t.err = nil
	return err
}

// addBlockRows adds every line of a block as one row. A line that is not
// a row still takes its place, empty, so that row numbers stay those of
// the block's lines.
func addBlockRows(b *terms.Builder, raw []byte) {
	b.AddRawBytes(len(raw))
	var f [record.NumColumns][]byte
	var unescaped []byte
	var session, project cachedField
	for len(raw) > 0 {
		var line []byte
		line, raw, _ = bytes.Cut(raw, []byte{'\n'})
		if !record.SplitRow(line, &f) {
			b.Add(&terms.Row{TimeMs: terms.UnknownTime, Type: terms.TypeOther})
			continue
		}
		// A text without a backslash has no escape: the builder reads it
		// in place instead of a copy.
		text := f[record.ColText]
		if bytes.IndexByte(text, '\\') >= 0 {
			unescaped = record.UnescapeAppend(unescaped[:0], text)
			text = unescaped
		}
		ms, ok := record.ParseTimestamp(string(f[record.ColTimestamp]))
		if !ok {
			ms = terms.UnknownTime
		}
		gen, _ := tsvfield.ParseUint32(f[record.ColGen])
		b.Add(&terms.Row{
			TimeMs:   ms,
			Type:     terms.TypeCode(string(f[record.ColType])),
			Gen:      gen,
			Session:  session.unescape(f[record.ColSession]),
			Project:  project.unescape(f[record.ColProject]),
			Text:     text,
			Headless: textrules.IsHeadlessEntrypoint(string(f[record.ColEntrypoint])),
			Agent:    record.AgentCode(record.AgentOf(string(f[record.ColAgentName]))),
		})
	}
}

// termRow is row r as addBlockRows reads it back from r's TSV line,
// without the round trip: the TSV escaping is undone exactly
// (tsvfield.FuzzRoundTrip), so the session, project and text are r's
// own; the timestamp is read from its escaped form, as addBlockRows
// reads it, when escaping changes it. ms and tsOK are
// ParseTimestamp(r.Timestamp), which the block builder has made. The
// text is a view of r.Text, which the builder only reads: handing it
// over saves reading back, splitting and unescaping every row.
func termRow(r *record.Row, ms int64, tsOK bool) terms.Row {
	if !tsvfield.Plain(r.Timestamp) {
		ms, tsOK = record.ParseTimestamp(string(appendEscaped(nil, r.Timestamp)))
	}
	if !tsOK {
		ms = terms.UnknownTime
	}
	return terms.Row{
		TimeMs: ms,
		// A type the TSV escapes names no type, nor does its escaped
		// form (it holds a backslash): both are TypeOther.
		Type:     terms.TypeCode(r.Type),
		Gen:      r.Gen,
		Session:  r.Session,
		Project:  r.Project,
		Text:     unsafe.Slice(unsafe.StringData(r.Text), len(r.Text)),
		Headless: r.Headless(),
		Agent:    record.AgentCode(record.AgentOf(r.Agent)),
	}
}

// cachedField unescapes a column whose value repeats from row to row (a
// block's rows come a transcript at a time), making a string only when
// the value changes.
type cachedField struct {
	escaped []byte
	value   string
	set     bool
}

func (c *cachedField) unescape(b []byte) string {
	if !c.set || !bytes.Equal(b, c.escaped) {
		c.escaped = append(c.escaped[:0], b...)
		c.value = record.Unescape(b)
		c.set = true
	}
	return c.value
}

// termsError words a term-index failure as the warning it is.
func termsError(err error) error {
	return fmt.Errorf("term index: %w (searches read the rows instead until the next run rebuilds it)", err)
}
