package watch

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/recall-dev/recall/indexer"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store"

	"github.com/fsnotify/fsnotify"
)

// Timings that keep the watch tests fast. The backstop is far beyond any
// test's length, so in the tests that use it only events can cause a run:
// a watch that misses an event fails the test instead of being rescued.
const (
	testDebounce = 30 * time.Millisecond
	testMaxDelay = 300 * time.Millisecond
	noBackstop   = time.Hour
	waitLimit    = 5 * time.Second
)

// watchLine is a typed prompt; its uuid derives from the text, so every
// distinct text is a distinct message (the indexer drops repeated uuids as
// fork copies).
func watchLine(text string) string {
	sum := sha256.Sum256([]byte(text))
	uuid := fmt.Sprintf("%x-%x-4%x-8%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
	rec := map[string]any{
		"type": "user", "uuid": uuid, "sessionId": testSession,
		"timestamp": "2026-04-01T10:00:00.000Z", "cwd": "/p",
		"message": map[string]any{"role": "user", "content": text},
	}
	b, err := json.Marshal(rec)
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

func watchMkdir(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func watchOptions(t *testing.T, src, idx string) Options {
	return Options{
		Options:  indexer.Options{Config: indexer.Config{Sources: []string{src}, IndexDir: idx}, Warn: func(s string) { t.Logf("warn: %s", s) }},
		Debounce: testDebounce,
		MaxDelay: testMaxDelay,
		Backstop: noBackstop,
		OnError:  func(err error) { t.Errorf("watcher error: %v", err) },
	}
}

// startWatcher runs a watcher until the test ends. prepare, if set, may
// swap the watcher's channels before it runs. stop cancels it and returns
// what Run returned.
func startWatcher(t *testing.T, opts Options, prepare func(*Watcher)) (w *Watcher, stop func() error) {
	t.Helper()
	w, err := New(opts)
	if err != nil {
		t.Fatalf("new watcher: %v", err)
	}
	if prepare != nil {
		prepare(w)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	var once sync.Once
	var runErr error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(waitLimit):
				runErr = errors.New("watcher did not stop")
			}
		})
		return runErr
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("stop watcher: %v", err)
		}
	})
	return w, stop
}

// realIndex runs the real indexer and counts the runs, so a test can wait
// for "a run after my change" before asserting that nothing changed.
type realIndex struct {
	opts indexer.Options
	mu   sync.Mutex
	sums []indexer.Summary
}

func (r *realIndex) index() (indexer.Summary, error) {
	sum, err := indexer.Run(r.opts)
	r.mu.Lock()
	r.sums = append(r.sums, sum)
	r.mu.Unlock()
	return sum, err
}

func (r *realIndex) runs() []indexer.Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.sums)
}

// startRealWatcher starts a watcher on src that indexes into a fresh index
// with the real indexer, and waits for its first run.
func startRealWatcher(t *testing.T, src string) (idx string, real *realIndex) {
	t.Helper()
	idx = t.TempDir()
	opts := watchOptions(t, src, idx)
	real = &realIndex{opts: opts.Options}
	opts.Index = real.index
	startWatcher(t, opts, nil)
	pollUntil(t, "the first run", func() bool { return len(real.runs()) >= 1 })
	return idx, real
}

func pollUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", waitLimit, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// indexedTexts is what a reader sees: the text of every committed row
// whose generation is not dead, with its count.
func indexedTexts(idx string) (map[string]int, error) {
	snap, err := store.Open(idx).Snapshot()
	if errors.Is(err, manifest.ErrNoIndex) {
		return map[string]int{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	out := map[string]int{}
	err = snap.EachRow(func(r *record.Row) error {
		if !snap.Dead(r.Gen) {
			out[r.Text]++
		}
		return nil
	})
	return out, err
}

// waitForTexts polls the index until it holds exactly want.
func waitForTexts(t *testing.T, idx string, want map[string]int) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		got, err := indexedTexts(idx)
		if err != nil {
			t.Fatalf("read index: %v", err)
		}
		if maps.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("index after %v:\n got %v\nwant %v", waitLimit, got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func watchWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const (
	textAlpha   = "alpha: how do we shard the billing ledger"
	textBravo   = "bravo: migrate the ledger to the new schema"
	textCharlie = "charlie: write the backfill job for ledger rows"
	textDelta   = "delta: the subagent audits the ledger migration"
	textEcho    = "echo: a deeper workflow agent checks the backfill"
)

func TestWatchNewProjectFolderAndTranscripts(t *testing.T) {
	src := t.TempDir()
	idx, _ := startRealWatcher(t, src)

	// The watcher must not hold the writer lock between runs: hooks and
	// searches take it.
	l, err := store.Open(idx).TryLock()
	if err != nil {
		t.Fatalf("writer lock while the watcher idles: %v", err)
	}
	l.Unlock()

	project := filepath.Join(src, "-home-dev-ledger")
	watchMkdir(t, project)
	main := filepath.Join(project, testSession+".jsonl")
	watchWrite(t, main, watchLine(textAlpha))
	waitForTexts(t, idx, map[string]int{textAlpha: 1})

	// A second transcript in the new folder proves the folder itself is
	// watched, not just noticed once.
	watchWrite(t, filepath.Join(project, "66666666-6666-4666-8666-666666666666.jsonl"), watchLine(textBravo))
	waitForTexts(t, idx, map[string]int{textAlpha: 1, textBravo: 1})

	appendText(t, main, watchLine(textCharlie))
	waitForTexts(t, idx, map[string]int{textAlpha: 1, textBravo: 1, textCharlie: 1})
}

func TestWatchRootCreatedAfterStart(t *testing.T) {
	src := filepath.Join(t.TempDir(), "projects")
	idx, _ := startRealWatcher(t, src)

	project := filepath.Join(src, "-home-dev-ledger")
	watchMkdir(t, project)
	watchWrite(t, filepath.Join(project, testSession+".jsonl"), watchLine(textAlpha))
	waitForTexts(t, idx, map[string]int{textAlpha: 1})
}

// A root removed and made again (a user clearing ~/.claude): once its
// removal is seen, the watcher waits for it again through its parent.
func TestWatchRootRemovedAndMadeAgain(t *testing.T) {
	src := filepath.Join(t.TempDir(), "projects")
	project := filepath.Join(src, "-home-dev-ledger")
	watchMkdir(t, project)
	watchWrite(t, filepath.Join(project, testSession+".jsonl"), watchLine(textAlpha))
	idx, real := startRealWatcher(t, src)
	waitForTexts(t, idx, map[string]int{textAlpha: 1})

	if err := os.RemoveAll(src); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, "a run that notices the removal", func() bool {
		return slices.ContainsFunc(real.runs(), func(s indexer.Summary) bool { return s.Gone == 1 })
	})
	watchMkdir(t, project)
	watchWrite(t, filepath.Join(project, "66666666-6666-4666-8666-666666666666.jsonl"), watchLine(textBravo))
	waitForTexts(t, idx, map[string]int{textAlpha: 1, textBravo: 1})
}

func TestWatchSubagentFoldersCreatedAfterStart(t *testing.T) {
	src := t.TempDir()
	project := filepath.Join(src, "-home-dev-ledger")
	watchMkdir(t, project)
	watchWrite(t, filepath.Join(project, testSession+".jsonl"), watchLine(textAlpha))
	idx, _ := startRealWatcher(t, src)
	waitForTexts(t, idx, map[string]int{textAlpha: 1})

	subagents := filepath.Join(project, testSession, "subagents")
	watchMkdir(t, subagents)
	watchWrite(t, filepath.Join(subagents, "agent-a0123456789abcdef.jsonl"), watchLine(textDelta))
	waitForTexts(t, idx, map[string]int{textAlpha: 1, textDelta: 1})

	deeper := filepath.Join(subagents, "workflows", "wf_1")
	watchMkdir(t, deeper)
	watchWrite(t, filepath.Join(deeper, "agent-afedcba9876543210.jsonl"), watchLine(textEcho))
	waitForTexts(t, idx, map[string]int{textAlpha: 1, textDelta: 1, textEcho: 1})
}

func TestWatchPartialLineWaitsForNewline(t *testing.T) {
	src := t.TempDir()
	project := filepath.Join(src, "-home-dev-ledger")
	watchMkdir(t, project)
	main := filepath.Join(project, testSession+".jsonl")
	watchWrite(t, main, watchLine(textAlpha))
	idx, real := startRealWatcher(t, src)
	waitForTexts(t, idx, map[string]int{textAlpha: 1})

	line := watchLine(textBravo)
	before := len(real.runs())
	appendText(t, main, line[:len(line)-1])
	pollUntil(t, "a run after the partial write", func() bool { return len(real.runs()) > before })
	got, err := indexedTexts(idx)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got, map[string]int{textAlpha: 1}) {
		t.Fatalf("indexed a line before its newline arrived: %v", got)
	}

	appendText(t, main, "\n")
	waitForTexts(t, idx, map[string]int{textAlpha: 1, textBravo: 1})
}

func TestWatchTruncatedTranscriptIsReread(t *testing.T) {
	src := t.TempDir()
	project := filepath.Join(src, "-home-dev-ledger")
	watchMkdir(t, project)
	main := filepath.Join(project, testSession+".jsonl")
	watchWrite(t, main, watchLine(textAlpha)+watchLine(textBravo)+watchLine(textCharlie))
	idx, _ := startRealWatcher(t, src)
	waitForTexts(t, idx, map[string]int{textAlpha: 1, textBravo: 1, textCharlie: 1})

	// Shorter than what was read, so the indexer can tell it was rewritten.
	watchWrite(t, main, watchLine(textDelta))
	waitForTexts(t, idx, map[string]int{textDelta: 1})
}

func TestWatchRenames(t *testing.T) {
	src := t.TempDir()
	project := filepath.Join(src, "-home-dev-ledger")
	watchMkdir(t, project)
	first := filepath.Join(project, "11111111-1111-4111-8111-111111111111.jsonl")
	second := filepath.Join(project, "22222222-2222-4222-8222-222222222222.jsonl")
	watchWrite(t, first, watchLine(textAlpha))
	watchWrite(t, second, watchLine(textBravo))
	idx, _ := startRealWatcher(t, src)
	waitForTexts(t, idx, map[string]int{textAlpha: 1, textBravo: 1})

	t.Run("moved in", func(t *testing.T) {
		outside := filepath.Join(t.TempDir(), "33333333-3333-4333-8333-333333333333.jsonl")
		watchWrite(t, outside, watchLine(textCharlie))
		if err := os.Rename(outside, filepath.Join(project, filepath.Base(outside))); err != nil {
			t.Fatal(err)
		}
		waitForTexts(t, idx, map[string]int{textAlpha: 1, textBravo: 1, textCharlie: 1})
	})
	t.Run("renamed over another", func(t *testing.T) {
		// second's old content is no longer on disk, so its rows go; first's
		// rows stay once (its old path is gone, and gone files keep rows).
		if err := os.Rename(first, second); err != nil {
			t.Fatal(err)
		}
		waitForTexts(t, idx, map[string]int{textAlpha: 1, textCharlie: 1})
	})
}

func TestWatchDeletedTranscriptKeepsRows(t *testing.T) {
	src := t.TempDir()
	project := filepath.Join(src, "-home-dev-ledger")
	watchMkdir(t, project)
	main := filepath.Join(project, testSession+".jsonl")
	watchWrite(t, main, watchLine(textAlpha))
	idx, real := startRealWatcher(t, src)
	waitForTexts(t, idx, map[string]int{textAlpha: 1})

	if err := os.Remove(main); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, "a run that notices the deletion", func() bool {
		return slices.ContainsFunc(real.runs(), func(s indexer.Summary) bool { return s.Gone == 1 })
	})
	got, err := indexedTexts(idx)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got, map[string]int{textAlpha: 1}) {
		t.Fatalf("rows after deletion: %v, want them kept", got)
	}
}

// fakeCall is one call of the fake indexer, with whatever the test's probe
// saw of the watcher at that moment.
type fakeCall struct {
	at  time.Time
	saw bool
}

// fakeIndex returns an Index that records each call on calls and returns
// at once. probe, if set, runs inside the call, on the watcher's run
// goroutine, so it may read the watcher's state without a race.
func fakeIndex(calls chan<- fakeCall, probe func() bool) func() (indexer.Summary, error) {
	return func() (indexer.Summary, error) {
		c := fakeCall{at: time.Now()}
		if probe != nil {
			c.saw = probe()
		}
		calls <- c
		return indexer.Summary{}, nil
	}
}

func nextCall(t *testing.T, calls <-chan fakeCall, what string) fakeCall {
	t.Helper()
	select {
	case c := <-calls:
		return c
	case <-time.After(waitLimit):
		t.Fatalf("timed out after %v waiting for %s", waitLimit, what)
		return fakeCall{}
	}
}

func TestWatchCoalescesBurstOfAppends(t *testing.T) {
	src := t.TempDir()
	project := filepath.Join(src, "-home-dev-ledger")
	watchMkdir(t, project)
	main := filepath.Join(project, testSession+".jsonl")
	watchWrite(t, main, "")
	barrier := filepath.Join(project, "barrier")

	calls := make(chan fakeCall, 1000)
	opts := watchOptions(t, src, t.TempDir())
	opts.MaxDelay = 2 * time.Second
	var w *Watcher
	opts.Index = fakeIndex(calls, func() bool { return w.dirs[barrier] })
	// w is set before Run starts, so the probe's reads of it are ordered.
	startWatcher(t, opts, func(started *Watcher) { w = started })
	nextCall(t, calls, "the first run")

	f, err := os.OpenFile(main, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i := range 200 {
		if _, err := f.WriteString(watchLine("burst line number " + strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	// Events are handled in order, so a run that sees the barrier folder
	// watched comes after every event of the burst: no run is left to come.
	watchMkdir(t, barrier)
	runs := 0
	for {
		c := nextCall(t, calls, "a run after the burst")
		runs++
		if c.saw {
			break
		}
	}
	if runs > 2 {
		t.Errorf("200 appends caused %d runs, want them coalesced into 1 or 2", runs)
	}
}

func TestWatchMaxDelayIndexesContinuousStream(t *testing.T) {
	src := t.TempDir()
	project := filepath.Join(src, "-home-dev-ledger")
	watchMkdir(t, project)
	main := filepath.Join(project, testSession+".jsonl")

	calls := make(chan fakeCall, 1000)
	opts := watchOptions(t, src, t.TempDir())
	opts.Debounce, opts.MaxDelay = 100*time.Millisecond, 250*time.Millisecond
	opts.Index = fakeIndex(calls, nil)
	startWatcher(t, opts, nil)
	nextCall(t, calls, "the first run")

	// One write every 10ms never leaves the 100ms quiet time the debounce
	// waits for; only the max delay can make runs happen meanwhile. The
	// writes go on until two runs came, not for a fixed time: on a loaded
	// machine the watcher may be slow to run. A pause between writes long
	// enough for the debounce (this goroutine starved) starts the count
	// again, so that only runs the max delay made are counted.
	deadline := time.Now().Add(30 * time.Second)
	during, last := 0, time.Now()
	for i := 0; during < 2; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("%d runs during 30s of continuous writes with a 250ms max delay, want at least 2", during)
		}
		appendText(t, main, watchLine("stream line number "+strconv.Itoa(i)))
		now := time.Now()
		if now.Sub(last) >= opts.Debounce/2 {
			during = 0
		}
		last = now
		for len(calls) > 0 {
			<-calls
			during++
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestWatchOverflowRescans(t *testing.T) {
	src := t.TempDir()
	lost := filepath.Join(src, "-home-dev-new", testSession, "subagents")
	errs := make(chan error)
	calls := make(chan fakeCall, 100)
	var w *Watcher
	var reported []error
	opts := watchOptions(t, src, t.TempDir())
	opts.OnError = func(err error) { reported = append(reported, err) }
	opts.Index = fakeIndex(calls, func() bool { return w.dirs[lost] })
	_, stop := startWatcher(t, opts, func(started *Watcher) {
		w = started
		w.errs = errs
		w.events = make(chan fsnotify.Event) // every real event is lost
	})
	nextCall(t, calls, "the first run")

	watchMkdir(t, lost)
	errs <- fsnotify.ErrEventOverflow
	if c := nextCall(t, calls, "a rescan after the overflow"); !c.saw {
		t.Errorf("the rescan ran before watching %s, which was made while events were lost", lost)
	}

	errs <- errors.New("inotify read failed")
	nextCall(t, calls, "a rescan after a watch error")
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if len(reported) != 1 || reported[0].Error() != "watch: inotify read failed" {
		t.Errorf("reported errors %v, want only the watch error (an overflow is expected, not an error)", reported)
	}
}

func TestWatchBackstopRescans(t *testing.T) {
	calls := make(chan fakeCall, 100)
	opts := watchOptions(t, t.TempDir(), t.TempDir())
	opts.Backstop = 50 * time.Millisecond
	opts.Index = fakeIndex(calls, nil)
	startWatcher(t, opts, nil)
	nextCall(t, calls, "the first run")
	nextCall(t, calls, "a backstop run")
	nextCall(t, calls, "a second backstop run")
}

func TestWatchCancelFinishesRunInProgress(t *testing.T) {
	src := t.TempDir()
	project := filepath.Join(src, "-home-dev-ledger")
	watchMkdir(t, project)
	idx := t.TempDir()

	firstRun, started, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	calls, finished := 0, 0
	opts := watchOptions(t, src, idx)
	opts.Index = func() (indexer.Summary, error) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		switch n {
		case 1:
			close(firstRun)
		case 2: // the first run caused by an event: hold it open
			close(started)
			<-release
		}
		mu.Lock()
		finished++
		mu.Unlock()
		return indexer.Summary{}, nil
	}
	_, stop := startWatcher(t, opts, nil)
	select {
	case <-firstRun: // watches are in place
	case <-time.After(waitLimit):
		t.Fatal("no first run")
	}

	watchWrite(t, filepath.Join(project, testSession+".jsonl"), watchLine(textAlpha))
	select {
	case <-started:
	case <-time.After(waitLimit):
		t.Fatal("no run after a transcript was written")
	}
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	select {
	case err := <-stopped:
		t.Fatalf("Run returned (%v) while a run was in progress", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if err := <-stopped; err != nil {
		t.Fatalf("stop: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 2 || finished != 2 {
		t.Errorf("runs started %d, finished %d; want 2 and 2 (no run after cancel)", calls, finished)
	}

	// The watch lock went with the watcher.
	again, err := New(watchOptions(t, src, idx))
	if err != nil {
		t.Fatalf("watcher after a clean stop: %v", err)
	}
	again.Close()
}

func TestWatchSecondWatcherIsRefused(t *testing.T) {
	opts := watchOptions(t, t.TempDir(), t.TempDir())
	first, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(opts)
	var running *RunningError
	if !errors.As(err, &running) {
		t.Fatalf("second watcher: err %v, want a WatchRunningError", err)
	}
	if want := strconv.Itoa(os.Getpid()); running.Holder() != want {
		t.Errorf("holder %q, want our pid %s", running.Holder(), want)
	}

	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(opts.IndexDir, LockName)); err != nil {
		t.Errorf("watch lock file after release: %v (it must never be deleted)", err)
	}
	third, err := New(opts)
	if err != nil {
		t.Fatalf("watcher after the first closed: %v", err)
	}
	third.Close()
}

func TestWatchSkipsMemoryAndToolResults(t *testing.T) {
	src := t.TempDir()
	project := filepath.Join(src, "-home-dev-ledger")
	watchMkdir(t, project)
	session := filepath.Join(project, testSession)
	skipped := []string{filepath.Join(project, "memory"), filepath.Join(session, "tool-results")}
	subagents := filepath.Join(session, "subagents")

	calls := make(chan fakeCall, 100)
	var w *Watcher
	var watchedSkipped []string
	opts := watchOptions(t, src, t.TempDir())
	opts.Index = fakeIndex(calls, func() bool {
		for _, d := range skipped {
			if w.dirs[d] {
				watchedSkipped = append(watchedSkipped, d)
			}
		}
		return w.dirs[subagents]
	})
	_, stop := startWatcher(t, opts, func(started *Watcher) { w = started })
	nextCall(t, calls, "the first run")

	watchMkdir(t, skipped...)
	watchMkdir(t, subagents) // after the skipped ones, so its run comes after their events
	for !nextCall(t, calls, "a run that sees subagents/ watched").saw {
	}
	watchList := w.fsw.WatchList()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for _, d := range skipped {
		if slices.Contains(watchList, d) {
			watchedSkipped = append(watchedSkipped, d)
		}
	}
	if len(watchedSkipped) > 0 {
		t.Errorf("watched %v; memory/ and tool-results/ hold no transcripts", watchedSkipped)
	}
}

func TestWatchEventFilter(t *testing.T) {
	src := t.TempDir()
	project := filepath.Join(src, "-home-dev-ledger")
	newDir := filepath.Join(project, testSession)
	memory := filepath.Join(project, "memory")
	watchMkdir(t, newDir, memory)
	opts := watchOptions(t, src, t.TempDir())
	opts.Index = func() (indexer.Summary, error) { return indexer.Summary{}, nil }
	w, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	transcript := filepath.Join(project, testSession+".jsonl")
	cases := []struct {
		name string
		ev   fsnotify.Event
		run  bool
	}{
		{"transcript written", fsnotify.Event{Name: transcript, Op: fsnotify.Write}, true},
		{"transcript created", fsnotify.Event{Name: transcript, Op: fsnotify.Create}, true},
		{"transcript renamed away", fsnotify.Event{Name: transcript, Op: fsnotify.Rename}, true},
		{"transcript removed", fsnotify.Event{Name: transcript, Op: fsnotify.Remove}, true},
		{"transcript chmod", fsnotify.Event{Name: transcript, Op: fsnotify.Chmod}, false},
		{"other file", fsnotify.Event{Name: filepath.Join(project, "notes.txt"), Op: fsnotify.Write}, false},
		{"subagent meta", fsnotify.Event{Name: filepath.Join(newDir, "subagents", "agent-a1.meta.json"), Op: fsnotify.Create}, false},
		{"outside the roots", fsnotify.Event{Name: filepath.Join(filepath.Dir(src), "history.jsonl"), Op: fsnotify.Write}, false},
		{"memory folder created", fsnotify.Event{Name: memory, Op: fsnotify.Create}, false},
		{"session folder created", fsnotify.Event{Name: newDir, Op: fsnotify.Create}, true},
		{"unwatched folder removed", fsnotify.Event{Name: filepath.Join(project, "elsewhere"), Op: fsnotify.Remove}, false},
		{"watched folder removed", fsnotify.Event{Name: newDir, Op: fsnotify.Remove}, true},
	}
	for _, c := range cases {
		if got := w.handle(c.ev); got != c.run {
			t.Errorf("%s (%v): run %v, want %v", c.name, c.ev, got, c.run)
		}
	}
	if w.dirs[newDir] || w.dirs[memory] {
		t.Errorf("watched folders left: %v", slices.Sorted(maps.Keys(w.dirs)))
	}
}

func TestWatchRejectsNegativeDurations(t *testing.T) {
	opts := watchOptions(t, t.TempDir(), t.TempDir())
	opts.Backstop = -time.Second
	if w, err := New(opts); err == nil {
		w.Close()
		t.Fatal("a negative backstop was accepted")
	}
}

func TestWatcherRunningProbe(t *testing.T) {
	dir := t.TempDir()
	if Running(dir) {
		t.Fatal("no watcher, but the probe says one runs")
	}
	l, err := takeWatchLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !Running(dir) {
		t.Fatal("watcher lock held, but the probe says none runs")
	}
	l.Unlock()
	if Running(dir) {
		t.Fatal("lock released, but the probe still says a watcher runs")
	}
}

// TestWatchLockSurvivesIndexDirReplaced: one watcher per index even after
// the index directory is deleted and made again (issue 23: the first
// watcher kept the lock of a deleted file, and a second one started on
// the same index). The watcher takes the lock of the new directory again
// (a run follows the lock file's removal); a watcher started on the new
// directory first makes the old one stop at its next check.
func TestWatchLockSurvivesIndexDirReplaced(t *testing.T) {
	t.Run("the running watcher takes the lock again", func(t *testing.T) {
		src, idx := t.TempDir(), filepath.Join(t.TempDir(), "idx")
		opts := watchOptions(t, src, idx)
		started := make(chan struct{}, 1)
		opts.Index = func() (indexer.Summary, error) {
			select {
			case started <- struct{}{}:
			default:
			}
			return indexer.Summary{}, nil
		}
		startWatcher(t, opts, nil)
		<-started // its first run is done: the removal races no run
		must(t, os.RemoveAll(idx))
		deadline := time.Now().Add(waitLimit)
		for {
			held, _ := store.Open(idx).LockHeld(LockName)
			if held {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the watcher did not take the lock of the new index directory")
			}
			time.Sleep(5 * time.Millisecond)
		}
		_, err := New(opts)
		var running *RunningError
		if !errors.As(err, &running) {
			t.Fatalf("a second watcher after the directory was replaced: %v, want a WatchRunningError", err)
		}
	})
	t.Run("a watcher that started first keeps the index", func(t *testing.T) {
		src, idx := t.TempDir(), filepath.Join(t.TempDir(), "idx")
		opts := watchOptions(t, src, idx)
		started := make(chan struct{}, 1)
		opts.Index = func() (indexer.Summary, error) {
			select {
			case started <- struct{}{}:
			default:
			}
			return indexer.Summary{}, nil
		}
		opts.Debounce, opts.MaxDelay = 300*time.Millisecond, 300*time.Millisecond
		first, err := New(opts)
		must(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- first.Run(ctx) }()
		<-started // its first run is done: the removal races no run
		must(t, os.RemoveAll(idx))
		second, err := New(opts) // before the first one's debounce ends
		if err != nil {
			t.Fatalf("a watcher on the new directory, while the old one has not looked: %v", err)
		}
		defer second.Close()
		select {
		case err := <-done:
			var running *RunningError
			if !errors.As(err, &running) {
				t.Fatalf("the old watcher ended with %v, want a WatchRunningError", err)
			}
		case <-time.After(waitLimit):
			t.Fatal("two watchers keep the same index")
		}
	})
}
