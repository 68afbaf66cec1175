// Package record holds what the index stores and both sides of it share:
// a row (one indexed message) and its TSV line, the state a transcript's
// reading left off at, titles, timestamps, message keys and session ids.
// It is a leaf: transcript reading, the store, search and ranking import
// it, and it imports none of them.
package record
