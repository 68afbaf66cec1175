package record

// FileState is what the manifest remembers of one transcript.
type FileState struct {
	Path    string
	Gen     uint32 // generation: rows carry it; a replaced file gets a new one
	Dev     uint64
	Ino     uint64
	Size    int64 // size when last read
	MtimeNs int64
	Offset  int64 // bytes consumed: always just after a '\n'
	Lines   int   // lines consumed
	Rows    int64 // rows indexed from this generation
	Session string
	Project string
	Kind    string // main, subagent or agent (older project-level layout)
	Agent   string
	Verdict string // indexed or fork
	Gone    bool   // deleted from disk; its rows are kept
	// Tail is a fingerprint of the last bytes consumed (format 2 on):
	// a transcript rewritten in place (same inode, any size) no longer
	// matches it and is read again as a new generation.
	Tail Fingerprint
}

// Fingerprint is the CRC-32C of the Len bytes that end at a transcript's
// consumed offset; Len 0 means none was taken.
type Fingerprint struct {
	CRC uint32
	Len int32
}

// File kinds and verdicts.
const (
	KindMain     = "main"
	KindSubagent = "subagent"
	KindAgentOld = "agent"

	VerdictIndexed   = "indexed"
	VerdictFork      = "fork"
	VerdictBinary    = "binary"    // not JSON text: skipped whole
	VerdictForgotten = "forgotten" // removed by `recall forget`: never read again
)
