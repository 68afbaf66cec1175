package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store/lockfile"

	"github.com/recall-dev/recall/store/keys"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/internal/atomicfile"
	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store/forget"
)

// The tombstone: what `recall forget` removed stays removed. The rows a
// forget drops leave every file of the index, but their transcripts may
// still be on disk, and `--rebuild`, a recovery from a lost manifest, a
// `--repair` or the discovery of a transcript under a new path would read
// them again. The tombstone (forgottenName) holds each forget as a rule
// that every one of those honours, and holds no text: session ids,
// project paths, transcript paths and message uuids appear in it only as
// keyed hashes (SHA-256 of a random key kept in the file, the kind of
// value and the value, cut to 16 bytes; 8 for uuids), which tell whether a
// given id or path is forgotten and cannot be turned back into one.
//
// A rule selects rows as the forget did: a session, a project (that
// folder and those inside it), a time before which rows were written;
// each part given must match. Besides, it names the transcripts it keeps
// out whole (seals; a time rule that emptied a transcript keeps the offset
// it was read to, so that later lines are read) and the messages whose
// copies in other sessions (a fork, a resume) are forgotten with them.
//
// The file is replaced whole by atomic rename (fsync, rename, directory
// fsync) before the rows are removed: a forget killed in between is
// finished by the next index run, which finds the manifest's
// ForgetSerial behind the tombstone's Serial. A damaged tombstone stops
// every writer (errTombstoneDamaged): reading transcripts without it
// would bring back what was forgotten.

// forgottenName is the tombstone of an index directory.
const forgottenName = "forgotten-v1.tsv"

// errTombstoneDamaged marks a tombstone that does not read: no transcript
// is read until it is repaired or removed.
var errTombstoneDamaged = errors.New("the list of forgotten sessions is damaged")

// readTombstone reads dir's tombstone; nil and no error when there is
// none.
func readTombstone(dir string) (*forget.Tombstone, error) {
	data, err := os.ReadFile(filepath.Join(dir, forgottenName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	t, err := forget.Parse(data)
	if err != nil {
		return nil, problem.Problem{Err: fmt.Errorf("%w: %s: %v; no transcript is read until it reads",
			errTombstoneDamaged, filepath.Join(dir, forgottenName), err), Remedy: problem.RestoreTombstone}
	}
	return t, nil
}

// tombstoneID stats dir's tombstone (zero when there is none): the quick
// check's freshness state keeps it, so that a forget, even one killed
// before it changed the manifest, makes the next run look.
func tombstoneID(dir string) record.FileID {
	id, _ := record.StatID(filepath.Join(dir, forgottenName))
	return id
}

// Write replaces dir's tombstone durably.
func writeTombstone(dir string, t *forget.Tombstone) error {
	if err := lockfile.EnsureDir(dir); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, forgottenName), t.Encode(), 0o600, nil)
}

// MessageRows are the rows of forgotten messages whose key records go:
// message uuid → the texts of its rows (what a key is computed from,
// besides the content block's position).
type MessageRows map[string][]string

// Add notes a row.
func (mr MessageRows) Add(r *record.Row) {
	if r.UUID != "" {
		mr[r.UUID] = append(mr[r.UUID], r.Text)
	}
}

// forgottenKeys returns the keys, among the key records of generations
// gens, that identify the messages rows: what a forget that leaves
// other rows of those generations drops from the keys file. A key
// hashes a message uuid with its content block's position in the line,
// which a row does not hold, so every position is tried (as recovery's
// cutKeys does), against the records there are.
func forgottenKeys(dir string, m *manifest.Manifest, gens map[uint32]bool, rows MessageRows) (map[uint64]bool, error) {
	out := map[uint64]bool{}
	if len(gens) == 0 || len(rows) == 0 {
		return out, nil
	}
	snap, err := snapshot.Of(dir, m)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	recs, err := snap.LiveKeys()
	if err != nil {
		return nil, err
	}
	return messageKeys(recs, gens, rows), nil
}

// messageKeys returns the keys of the records recs of generations gens
// that identify one of the messages rows.
func messageKeys(recs []byte, gens map[uint32]bool, rows MessageRows) map[uint64]bool {
	out := map[uint64]bool{}
	present := map[uint64]bool{}
	for off := 0; off+keys.RecordSize <= len(recs); off += keys.RecordSize {
		if gens[binary.LittleEndian.Uint32(recs[off+8:])] {
			present[binary.LittleEndian.Uint64(recs[off:])] = true
		}
	}
	if len(present) == 0 {
		return out
	}
	for u, texts := range rows {
		for _, text := range texts {
			for block := range 256 {
				for _, k := range record.RowKeys(u, text, block) {
					if present[k] {
						out[k] = true
					}
				}
			}
		}
	}
	return out
}

// withoutKeys returns the records of recs whose key is not in drop.
func withoutKeys(recs []byte, drop map[uint64]bool) []byte {
	if len(drop) == 0 {
		return recs
	}
	out := make([]byte, 0, len(recs))
	for off := 0; off+keys.RecordSize <= len(recs); off += keys.RecordSize {
		if !drop[binary.LittleEndian.Uint64(recs[off:])] {
			out = append(out, recs[off:off+keys.RecordSize]...)
		}
	}
	return out
}

// keyOwners maps the key of every message indexed from a live generation
// to that generation: who owns a message, for a forget that must not take
// a copy's original with it.
func keyOwners(dir string, m *manifest.Manifest) (map[uint64]uint32, error) {
	snap, err := snapshot.Of(dir, m)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	recs, err := snap.LiveKeys()
	if err != nil {
		return nil, err
	}
	out := make(map[uint64]uint32, len(recs)/keys.RecordSize)
	for off := 0; off+keys.RecordSize <= len(recs); off += keys.RecordSize {
		out[binary.LittleEndian.Uint64(recs[off:])] = binary.LittleEndian.Uint32(recs[off+8:])
	}
	return out, nil
}
