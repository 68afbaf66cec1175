package store

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/klauspost/compress/zstd"

	"github.com/recall-dev/recall/store/terms"
)

// blockWindow is the zstd window: a frame holds one block of about
// blockTarget bytes, so a larger window buys nothing and costs memory per
// encoder (the default keeps 16 MiB of history each).
const blockWindow = 1 << 19

// pendingBlock is a full block on its way to the rows file.
type pendingBlock struct {
	raw []byte // TSV rows
	// terms is the rows as the term index reads them (termRow), nil when
	// it must read them from raw
	terms []terms.Row
	meta  snapshot.Block // all but Offset and Size
	frame []byte         // the compressed frame, once encoded
	done  chan struct{}
}

// encoder closes blocks on every core and writes them in order.
//
// submit hands a block to the workers, which compress it, and queues it
// for the writer goroutine, which waits for each block in submission order,
// appends its frame and metadata record and passes its rows on to the
// term index (termsPipeline). The writer goroutine alone touches the rows and blocks files and the
// manifest's rows counters between drains; drain waits until every
// submitted block is written, so the committer may read them and fsync.
type encoder struct {
	w       *RowsWriter
	terms   *termsPipeline
	block   int // number of the next block written
	encs    []*zstd.Encoder
	jobs    chan *pendingBlock
	order   chan *pendingBlock
	wg      sync.WaitGroup // workers
	written chan struct{}  // one token per block written
	pending int            // submitted since the last drain
	mu      sync.Mutex
	err     error // first write error
	writer  sync.WaitGroup
	// frames holds the buffers of frames written, for the next ones: a
	// new one per block was 70 MB of the allocations of a 1 GB index.
	frames sync.Pool // *[]byte
}

// frameBuffer is an empty buffer for a frame, of at least n bytes.
func (e *encoder) frameBuffer(n int) []byte {
	if b, ok := e.frames.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:0]
	}
	return make([]byte, 0, n)
}

func newEncoder(w *RowsWriter) (*encoder, error) {
	n := runtime.GOMAXPROCS(0)
	e := &encoder{
		w:       w,
		terms:   newTermsPipeline(w.dir, w.m.Seq, w.bufs.put),
		block:   w.m.BlockCount(),
		jobs:    make(chan *pendingBlock, n),
		order:   make(chan *pendingBlock, 2*n+2),
		written: make(chan struct{}, 2*n+2),
	}
	for range n {
		// SpeedFastest: compressing is the largest single stage of a full
		// index, and the fastest level costs a few percent of the rows'
		// size, well within the index-size budget (docs/performance.md,
		// "Measurements behind the code": the rows' compression level).
		// The rows decompress to the same bytes whatever the level.
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(blockWindow), zstd.WithLowerEncoderMem(true))
		if err != nil {
			e.closeEncoders()
			return nil, fmt.Errorf("zstd encoder: %w", err)
		}
		e.encs = append(e.encs, enc)
	}
	for i := range n {
		e.wg.Add(1)
		go e.work(e.encs[i])
	}
	e.writer.Add(1)
	go e.writeInOrder()
	return e, nil
}

// work compresses blocks; each worker has its own zstd encoder, reused
// from block to block.
func (e *encoder) work(enc *zstd.Encoder) {
	defer e.wg.Done()
	for p := range e.jobs {
		p.frame = enc.EncodeAll(p.raw, e.frameBuffer(len(p.raw)/4))
		close(p.done)
	}
}

// writeInOrder appends frames and block records in submission order.
func (e *encoder) writeInOrder() {
	defer e.writer.Done()
	for p := range e.order {
		<-p.done
		if err := e.write(p); err != nil {
			e.mu.Lock()
			if e.err == nil {
				e.err = err
			}
			e.mu.Unlock()
		}
		e.written <- struct{}{}
	}
}

func (e *encoder) write(p *pendingBlock) error {
	if e.firstErr() != nil {
		return nil // a frame after a failed one would leave a hole
	}
	m := e.w.m
	p.meta.Offset, p.meta.Size = m.RowsBytes, int64(len(p.frame))
	if _, err := e.w.rows.Write(p.frame); err != nil {
		return fmt.Errorf("write rows frame: %w", err)
	}
	rec := p.meta.AppendRecord(nil)
	if _, err := e.w.blocks.Write(rec); err != nil {
		return fmt.Errorf("write block record: %w", err)
	}
	m.RowsBytes += p.meta.Size
	m.BlocksBytes += int64(len(rec))
	m.Frames++
	m.Rows += int64(p.meta.Rows)
	e.terms.add(e.block, p.raw, p.terms)
	e.block++
	frame := p.frame
	e.frames.Put(&frame)
	p.raw, p.frame, p.terms = nil, nil, nil
	return nil
}

func (e *encoder) firstErr() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// submit queues a block. It blocks while the pipeline is full, which bounds
// memory to a few blocks per core.
func (e *encoder) submit(p *pendingBlock) error {
	if err := e.firstErr(); err != nil {
		return err
	}
	p.done = make(chan struct{})
	for e.pending >= cap(e.written) {
		<-e.written
		e.pending--
	}
	e.pending++
	e.order <- p
	e.jobs <- p
	return nil
}

// drain waits until every submitted block is written.
func (e *encoder) drain() error {
	for ; e.pending > 0; e.pending-- {
		<-e.written
	}
	return e.firstErr()
}

// stop ends the goroutines after the blocks in flight.
func (e *encoder) stop() {
	close(e.jobs)
	e.wg.Wait()
	close(e.order)
	e.writer.Wait()
	// Segments of blocks never committed are strays the next run removes.
	_ = e.terms.flush()
	e.closeEncoders()
}

func (e *encoder) closeEncoders() {
	for _, enc := range e.encs {
		enc.Close()
	}
}
