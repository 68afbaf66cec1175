package store

import (
	"encoding/binary"
	"fmt"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/textrules"
)

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
	dst = binary.LittleEndian.AppendUint32(dst, manifest.FormatVersion)
	return binary.LittleEndian.AppendUint32(dst, textrules.FeatureVersion)
}

// readBinaryHeader checks a derived file's header and returns the feature
// version that built it.
func readBinaryHeader(data []byte, magic string) (feature uint32, err error) {
	if len(data) < binaryHeaderSize || string(data[:8]) != magic {
		return 0, fmt.Errorf("no %q header", magic)
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != manifest.FormatVersion {
		return 0, fmt.Errorf("header says format v%d, want v%d", v, manifest.FormatVersion)
	}
	return binary.LittleEndian.Uint32(data[12:]), nil
}

// eventsHeader is the first line of a v2 events file.
func eventsHeader() string {
	return fmt.Sprintf("recall-events\tv%d\tfeature\t%d\n", manifest.FormatVersion, textrules.FeatureVersion)
}

// staleReason says why the derived data a manifest describes cannot be
// used for bounds or skipping, or "" when it can: derived files record the
// rules that built them, and rules change with recall versions.
func staleReason(m *manifest.Manifest) string {
	switch {
	case m.Format != manifest.FormatVersion:
		return fmt.Sprintf("the index was written in format v%d by an older recall, before derived files recorded the rules that built them", m.Format)
	case m.Feature != textrules.FeatureVersion:
		return fmt.Sprintf("its derived data was built under text rules v%d, and this recall's are v%d", m.Feature, textrules.FeatureVersion)
	}
	return ""
}
