// Package watch keeps an index fresh while transcripts are written: it
// watches the transcript trees (fsnotify), gathers changes for a short
// debounce, and runs the indexer on what changed. One watcher holds an
// index at a time (LockName).
package watch
