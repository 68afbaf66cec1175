// Package problem carries damage to the index as a value: what is
// affected, why, and what mends it. The store and the search name the
// remedy; each front end words it for its reader (a shell user, an
// agent), so no command line is written into the error itself.
package problem

import (
	"errors"
	"fmt"
)

// Remedy is what mends a problem, in terms of recall's own runs.
type Remedy int

const (
	// None: nothing recall runs mends it (or the remedy was tried).
	None Remedy = iota
	// Index: the next index run mends it (recovers, rebuilds or completes
	// a part from the data the index keeps).
	Index
	// Repair: an index run with repair mends it, re-reading transcripts
	// or rebuilding what the rows still hold.
	Repair
	// RestoreTombstone: the list of forgotten sessions must be restored
	// from a backup, or removed and the forget done again; no run can
	// rebuild it, and none reads transcripts without it.
	RestoreTombstone
)

// Problem is damage met in the index. Its text says what and why, never
// how to run the remedy: front ends add that (Say).
type Problem struct {
	Part   string // the file or part affected, "" when Err names it
	Err    error
	Remedy Remedy
	// Mends says what the remedy does, as the rest of a sentence whose
	// subject is the remedy: "recovers it from the data files".
	Mends string
}

func (p Problem) Error() string {
	if p.Part == "" {
		return p.Err.Error()
	}
	return p.Part + ": " + p.Err.Error()
}

func (p Problem) Unwrap() error { return p.Err }

// Find returns the outermost Problem in err's chain: the one whose remedy
// applies to the error as a whole.
func Find(err error) (Problem, bool) {
	var p Problem
	ok := errors.As(err, &p)
	return p, ok
}

// Wording says a problem's remedy for one kind of reader: the text that
// follows the error's own ("" for none).
type Wording func(Problem) string

// Say is err's text followed by the remedy of the outermost Problem it
// wraps, as w words it.
func Say(err error, w Wording) string {
	if p, ok := Find(err); ok && p.Remedy != None {
		return err.Error() + w(p)
	}
	return err.Error()
}

// SayAll is Say of each of errs (nil for none).
func SayAll(errs []error, w Wording) []string {
	var out []string
	for _, err := range errs {
		out = append(out, Say(err, w))
	}
	return out
}

// NeedsRepair is err as damage only a repair mends; mends says how, as
// the rest of a sentence whose subject is the repair.
func NeedsRepair(err error, mends string) error {
	return Problem{Err: err, Remedy: Repair, Mends: mends}
}

// RowsSkipped is rows a reader skipped (err says which and why): a
// repair reads them again from the transcripts that still exist.
func RowsSkipped(err error) error {
	return NeedsRepair(err, "re-reads them from transcripts that still exist")
}

// BadRows is n index rows that did not read as rows and were skipped.
func BadRows(n int) error {
	return RowsSkipped(fmt.Errorf("%d index rows could not be read and were skipped", n))
}

// ShellWording says a problem's remedy to someone at a shell: the command
// to run and what it does (the CLI's wording, and the MCP server's log's).
func ShellWording(p Problem) string {
	switch p.Remedy {
	case Index:
		return "; `recall index` " + p.Mends
	case Repair:
		return "; `recall index --repair` " + p.Mends
	case RestoreTombstone:
		return " (restore it from a backup, or remove it and run `recall forget` again)"
	}
	return ""
}
