package manifest

import (
	"path/filepath"

	"github.com/recall-dev/recall/record"
)

// Stamp identifies a committed manifest: its checkpoint and its
// journal (ManifestID). A checkpoint changes them both; a journal record
// changes the journal's size.
type Stamp struct {
	Checkpoint, Journal record.FileID
}

// ReadStamp identifies dir's committed manifest: a checkpoint renames a
// new file over ManifestName and starts a new journal, a journal commit
// makes the journal longer, so every commit changes it. A journal that
// is not there stamps as zero.
func ReadStamp(dir string) (Stamp, error) {
	cp, err := record.StatID(filepath.Join(dir, Name))
	if err != nil {
		return Stamp{}, err
	}
	j, _ := record.StatID(filepath.Join(dir, JournalName))
	return Stamp{Checkpoint: cp, Journal: j}, nil
}
