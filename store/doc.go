// Package store is recall's index on disk as one handle. Open gives the
// Index: readers take a Snapshot of what is committed; the one writer
// (TryLock, WaitLock) appends rows, commits, compacts, recovers and keeps
// the derived files (blocks, keys, events, the term index) in step with
// the rows, which are canonical.
//
// The files are read and written by its subpackages: manifest (what is
// committed: the manifest, its journal, file names and versions),
// snapshot (one committed state, read and verified), keys (message
// identities), terms (the term index), forget (the list of forgotten
// sessions) and lockfile (locks). docs/index-format.md describes the
// layout.
package store
