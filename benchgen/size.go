package benchgen

import (
	"github.com/recall-dev/recall/indexer"

	"fmt"
	"strconv"
	"strings"
)

// sizeUnits are binary multiples: "1GB" is 1<<30 bytes, the way du -h and
// most people size a corpus on disk. KiB-style spellings mean the same.
var sizeUnits = []struct {
	suffix string
	factor int64
}{
	{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"TIB", 1 << 40},
	{"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"TB", 1 << 40},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40},
	{"B", 1},
}

// ParseSize reads sizes such as "50MB", "1GB", "1.5G" or "4096".
func ParseSize(s string) (int64, error) {
	text := strings.ToUpper(strings.TrimSpace(s))
	factor := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(text, u.suffix) {
			text = strings.TrimSpace(strings.TrimSuffix(text, u.suffix))
			factor = u.factor
			break
		}
	}
	n, err := strconv.ParseFloat(text, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("size %q: want a positive number with an optional unit (KB, MB, GB)", s)
	}
	return int64(n * float64(factor)), nil
}

// FormatSize prints n with a binary unit, e.g. "1.00 GB", matching the
// units ParseSize reads; it is the indexer's own rendering.
func FormatSize(n int64) string { return indexer.HumanBytes(n) }
