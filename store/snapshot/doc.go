// Package snapshot reads one committed state of the index: the manifest
// it was opened at, the rows file and its block records, the recall
// events and titles, session summaries and shapes, and key lookups.
// Verify checks every file against the manifest. A snapshot never sees
// a commit made after it was opened.
package snapshot
