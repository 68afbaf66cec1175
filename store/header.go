package store

import (
	"encoding/binary"
	"fmt"

	"github.com/recall-dev/recall/textrules"
)

// formatVersion is the on-disk layout version of the data files. It
// appears in their names (rows-v2-…, blocks-v2-…) and in the manifest's
// format line (the manifest's own layout is manifestVersion). A reader
// that meets a newer version refuses the index and asks for `recall
// index --rebuild`; an older one it still reads, and the next
// `recall index` (or search) rewrites it in this layout from its rows.
//
// Changes, one line each:
//
//	1: rows, blocks, uuids and events files; no file records its rules.
//	2: blocks, keys (was uuids) and events files open with a header giving
//	   the format and the feature version (textrules.FeatureVersion) that
//	   built them; the manifest records the feature version too.
const formatVersion = 2

// oldestFormat is the oldest layout this recall still reads.
const oldestFormat = 1

// Derived binary files (blocks, keys) open with a fixed header: an 8-byte
// magic, then the format and the feature version as little-endian uint32.
// Each block record carries its own CRC; keys are fixed-size records.
const binaryHeaderSize = 16

const (
	blocksMagic = "RCLBLOCK"
	keysMagic   = "RCLKEYS\x00"
)

func appendBinaryHeader(dst []byte, magic string) []byte {
	dst = append(dst, magic...)
	dst = binary.LittleEndian.AppendUint32(dst, formatVersion)
	return binary.LittleEndian.AppendUint32(dst, textrules.FeatureVersion)
}

// readBinaryHeader checks a derived file's header and returns the feature
// version that built it.
func readBinaryHeader(data []byte, magic string) (feature uint32, err error) {
	if len(data) < binaryHeaderSize || string(data[:8]) != magic {
		return 0, fmt.Errorf("no %q header", magic)
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != formatVersion {
		return 0, fmt.Errorf("header says format v%d, want v%d", v, formatVersion)
	}
	return binary.LittleEndian.Uint32(data[12:]), nil
}

// eventsHeader is the first line of a v2 events file.
func eventsHeader() string {
	return fmt.Sprintf("recall-events\tv%d\tfeature\t%d\n", formatVersion, textrules.FeatureVersion)
}

// staleReason says why the derived data a manifest describes cannot be
// used for bounds or skipping, or "" when it can: derived files record the
// rules that built them, and rules change with recall versions.
func staleReason(m *Manifest) string {
	switch {
	case m.Format != formatVersion:
		return fmt.Sprintf("the index was written in format v%d by an older recall, before derived files recorded the rules that built them", m.Format)
	case m.Feature != textrules.FeatureVersion:
		return fmt.Sprintf("its derived data was built under text rules v%d, and this recall's are v%d", m.Feature, textrules.FeatureVersion)
	}
	return ""
}
