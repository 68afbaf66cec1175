// Package filter holds the index-time rules, which decide what recall
// keeps: the exclusions (each with a reason that is counted and
// reported: noise, acknowledgements, short messages, recall's own
// output, forks and copies), the recall event and its windowed cutoff.
// The query language is package query.
package filter

// Reason says why a message was left out of the index. Kept means it was
// not left out.
type Reason uint8

// The reasons, in the order `recall index` and `recall stats` report them.
// The numeric values are stored in the manifest's counters by name, never by
// number, so the order may change.
const (
	Kept            Reason = iota
	Noise                  // tool, system, IDE, hook or command text; synthetic turns
	TooShort               // fewer than MinChars characters left after stripping noise
	Acknowledgement        // "ok", "thanks", "I'll help with that" and the like, on their own
	Fork                   // left out whole by an earlier recall for opening with queue-operation, and deleted before it could be read again
	Copy                   // the message uuid was already indexed from another transcript
	Headless               // from a headless run (claude -p, an SDK): kept, left out of searches unless asked for
	RecallOutput           // recall's own output pasted back
	CurrentSession         // the session that is running now (picked up once it ends)
	BadLine                // the line is not valid JSON
	TooLong                // the line is over the size a message may take (transcript.MaxLineBytes)
	Binary                 // the file is not JSON text at all
	numReasons
)

var reasonNames = [numReasons]string{
	Kept:            "kept",
	Noise:           "noise",
	TooShort:        "too_short",
	Acknowledgement: "acknowledgement",
	Fork:            "fork",
	Copy:            "copy",
	Headless:        "headless",
	RecallOutput:    "recall_output",
	CurrentSession:  "current_session",
	BadLine:         "bad_line",
	TooLong:         "too_long",
	Binary:          "binary_file",
}

var reasonExplanations = [numReasons]string{
	Kept:            "indexed",
	Noise:           "tool, system, IDE, hook or slash-command text",
	TooShort:        "shorter than 10 characters once noise is stripped",
	Acknowledgement: "a bare acknowledgement such as \"ok\" or \"thanks\"",
	Fork:            "transcripts an earlier recall left out whole for opening with queue-operation, deleted before this one could read them",
	Copy:            "already indexed from another transcript (same message uuid): a fork's or resume's copy",
	Headless:        "messages of headless runs (claude -p, the SDKs): kept in the index, left out of searches unless --include-headless",
	RecallOutput:    "recall's own output pasted back",
	CurrentSession:  "the session that is running now; indexed once it ends",
	BadLine:         "not valid JSON",
	TooLong:         "a line over 16 MiB (skipped without being held in memory)",
	Binary:          "a .jsonl file that is not JSON text (binary); skipped whole",
}

// Valid reports whether r is one of the reasons above (a number read
// from outside may be none).
func (r Reason) Valid() bool { return r < numReasons }

// String is the reason's stable name, used in summaries and the manifest.
func (r Reason) String() string {
	if r < numReasons {
		return reasonNames[r]
	}
	return "unknown"
}

// Explanation is a short human sentence for `recall stats`.
func (r Reason) Explanation() string {
	if r < numReasons {
		return reasonExplanations[r]
	}
	return "unknown reason"
}

// Reasons lists every exclusion reason (Kept not included) in report order.
func Reasons() []Reason {
	out := make([]Reason, 0, numReasons-1)
	for r := Noise; r < numReasons; r++ {
		out = append(out, r)
	}
	return out
}
