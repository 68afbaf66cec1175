package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/recall-dev/recall/indexer/watch"
	"github.com/recall-dev/recall/internal/problem"

	"github.com/recall-dev/recall/indexer"
)

type watchCmd struct {
	Debounce        time.Duration `default:"200ms" help:"Index this long after the last change, so a burst of writes becomes one run."`
	MaxDelay        time.Duration `name:"max-delay" default:"2s" help:"Index at least this often while changes keep coming."`
	Backstop        time.Duration `default:"5m" help:"Rescan everything this often, in case a filesystem event was lost."`
	IncludeHeadless bool          `name:"include-headless" hidden:"" help:"Accepted for older scripts: headless runs are always indexed now, and a search's --include-headless shows them."`
	NoRedact        bool          `name:"no-redact" help:"Keep secrets (keys, tokens, passwords) in the rows the watcher adds; by default they are replaced by [REDACTED:kind] placeholders."`
}

func (c *watchCmd) Run(g *Globals) error {
	limitIndexerMemory()
	cfg, err := g.config()
	if err != nil {
		return err
	}
	// A watcher outlives the session it may have been started from: only
	// an explicit --current-session is honoured, or that session would be
	// skipped for the watcher's whole life.
	cfg.CurrentSession = g.CurrentSession
	logLine := logTo(g.env.stderr)
	if c.IncludeHeadless {
		logLine(headlessIndexNote)
	}
	w, err := watch.New(c.options(cfg, g.Verbose, g.env.stderr))
	var running *watch.RunningError
	if errors.As(err, &running) {
		// Not an error: the index is being kept up to date, which is what
		// the caller wanted (a login script may start a watcher every time).
		fmt.Fprintf(g.env.stderr, "recall watch is already running (pid %s)\n", running.Holder())
		return nil
	}
	if err != nil {
		return err
	}
	if g.Verbose || isTerminal(g.env.stderr) {
		logLine(fmt.Sprintf("watching %s; index in %s (Ctrl-C stops)", strings.Join(cfg.Sources, ", "), cfg.IndexDir))
	}
	ctx, stop := interruptContext()
	defer stop()
	err = w.Run(ctx)
	if errors.As(err, &running) {
		// The index directory was replaced and another watcher took it
		// first: it keeps the index; this one leaves.
		fmt.Fprintf(g.env.stderr, "recall watch: the index directory was replaced and another watcher (pid %s) keeps it now; stopping\n", running.Holder())
		return nil
	}
	return err
}

// options wires the watcher to stderr: per-file diagnostics only with -v;
// the one-line run summaries with -v or on a terminal (someone watches
// it there; a log file of a background watcher keeps to what went
// wrong); failures the watcher survives always.
func (c *watchCmd) options(cfg indexer.Config, verbose bool, stderr io.Writer) watch.Options {
	ui := newStderrUI(stderr, verbose, false)
	logLine := logTo(stderr)
	opts := watch.Options{
		Options: indexer.Options{
			Config:   cfg,
			NoRedact: c.NoRedact,
			Warn:     ui.verboseWarn,
			Notice:   logLine, // a rebuild of derived data, once
			Wording:  problem.ShellWording,
		},
		Debounce: c.Debounce,
		MaxDelay: c.MaxDelay,
		Backstop: c.Backstop,
		OnError:  func(err error) { logLine(sayCLI(err)) },
	}
	if verbose || isTerminal(stderr) {
		opts.Log = logLine
	}
	return opts
}

// logTo returns a logger of one timestamped line per message to w: a
// watcher's stderr is read later, as a log, so each line says when it
// happened.
func logTo(w io.Writer) func(msg string) {
	return func(msg string) {
		fmt.Fprintf(w, "%s recall: %s\n", time.Now().Format("15:04:05"), msg)
	}
}

// interruptContext is cancelled by the first SIGINT or SIGTERM, which lets
// the run in progress finish and commit. A second signal exits at once
// (status 130): every commit is atomic, so only that run's uncommitted work
// is lost, and the next run redoes it.
func interruptContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
			return
		}
		select {
		case <-sigs:
			os.Exit(130)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}
