// Package indexdir says where recall keeps its index when no flag or
// variable says: one place for the full recall and the prompt hook's small
// binary (cmd/recall-hint), which must not link the indexer to learn it.
package indexdir

import (
	"errors"
	"os"
	"path/filepath"
)

// Default is $XDG_DATA_HOME/recall, else ~/.local/share/recall.
func Default() (string, error) {
	if dir := os.Getenv("XDG_DATA_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "recall"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("no index directory: set --index-dir or RECALL_INDEX_DIR")
	}
	return filepath.Join(home, ".local", "share", "recall"), nil
}
