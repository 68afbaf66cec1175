package store

import "github.com/recall-dev/recall/internal/tsvfield"

// appendEscaped appends s as one TSV field of the index's own files.
func appendEscaped(dst []byte, s string) []byte { return tsvfield.Append(dst, s) }
