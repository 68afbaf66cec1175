package manifest

import (
	"encoding/binary"
	"fmt"

	"github.com/recall-dev/recall/textrules"
)

// Derived binary files (blocks, keys) open with a fixed header: an 8-byte
// magic, then the format and the feature version as little-endian uint32.
// Each block record carries its own CRC; keys are fixed-size records.
const HeaderSize = 16

const (
	BlocksMagic = "RCLBLOCK"
	KeysMagic   = "RCLKEYS\x00"
)

func AppendHeader(dst []byte, magic string) []byte {
	dst = append(dst, magic...)
	dst = binary.LittleEndian.AppendUint32(dst, FormatVersion)
	return binary.LittleEndian.AppendUint32(dst, textrules.FeatureVersion)
}

// ReadHeader checks a derived file's header and returns the feature
// version that built it.
func ReadHeader(data []byte, magic string) (feature uint32, err error) {
	if len(data) < HeaderSize || string(data[:8]) != magic {
		return 0, fmt.Errorf("no %q header", magic)
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != FormatVersion {
		return 0, fmt.Errorf("header says format v%d, want v%d", v, FormatVersion)
	}
	return binary.LittleEndian.Uint32(data[12:]), nil
}

// EventsHeader is the first line of a v2 events file.
func EventsHeader() string {
	return fmt.Sprintf("recall-events\tv%d\tfeature\t%d\n", FormatVersion, textrules.FeatureVersion)
}

// StaleReason says why the derived data a manifest describes cannot be
// used for bounds or skipping, or "" when it can: derived files record the
// rules that built them, and rules change with recall versions.
func StaleReason(m *Manifest) string {
	switch {
	case m.Format != FormatVersion:
		return fmt.Sprintf("the index was written in format v%d by an older recall, before derived files recorded the rules that built them", m.Format)
	case m.Feature != textrules.FeatureVersion:
		return fmt.Sprintf("its derived data was built under text rules v%d, and this recall's are v%d", m.Feature, textrules.FeatureVersion)
	}
	return ""
}
