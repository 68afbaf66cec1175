// Package manifest is what the index has committed: which sequence of
// data files, how many bytes of each, and every transcript's state. A
// commit appends a record to the journal; a checkpoint rewrites the
// manifest whole. It also names the index's files and holds the format
// version and the headers derived files open with.
package manifest
