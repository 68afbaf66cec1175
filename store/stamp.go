package store

import (
	"path/filepath"

	"github.com/recall-dev/recall/record"
)

// ManifestStamp identifies a committed manifest: its checkpoint and its
// journal (ManifestID). A checkpoint changes them both; a journal record
// changes the journal's size.
type ManifestStamp struct {
	Checkpoint, Journal record.FileID
}

// manifestID identifies dir's committed manifest: a checkpoint renames a
// new file over ManifestName and starts a new journal, a journal commit
// makes the journal longer, so every commit changes it. A journal that
// is not there stamps as zero.
func manifestID(dir string) (ManifestStamp, error) {
	cp, err := record.StatID(filepath.Join(dir, ManifestName))
	if err != nil {
		return ManifestStamp{}, err
	}
	j, _ := record.StatID(filepath.Join(dir, JournalName))
	return ManifestStamp{Checkpoint: cp, Journal: j}, nil
}
