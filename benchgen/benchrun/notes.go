package benchrun

import (
	"bytes"
	"os"
)

// notesMarker starts the hand-written part of the report (what the numbers
// mean, measurements the run does not make): a run rewrites everything
// above it and keeps the rest.
const notesMarker = "<!-- Written by hand from here on; recall-bench run keeps it. -->"

// withNotes appends to md the hand-written part of the report at path, if
// it has one.
func withNotes(md, path string) string {
	old, err := os.ReadFile(path)
	if err != nil {
		return md
	}
	i := bytes.Index(old, []byte(notesMarker))
	if i < 0 {
		return md
	}
	return md + "\n" + string(old[i:])
}
