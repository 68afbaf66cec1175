package main

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"
)

// rows reads the text of an index's rows, one per line as
// `zstdcat IDX/rows-*.zst | cut -f4` prints them, from the file
// $RECALL_REDACT_ROWS.
func rows(b *testing.B) ([]string, int) {
	path := os.Getenv("RECALL_REDACT_ROWS")
	if path == "" {
		b.Skip("set RECALL_REDACT_ROWS to a file of row texts (zstdcat IDX/rows-*.zst | cut -f4)")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []string
	total := 0
	for sc.Scan() {
		s := strings.ReplaceAll(sc.Text(), `\n`, "\n")
		out = append(out, s)
		total += len(s)
	}
	return out, total
}

// BenchmarkGitleaksDetector is what redacting each row with gitleaks'
// own detector (its default rules, its keyword prefilter) would cost:
// the figure docs/benchmarks.md compares recall's redactor with.
func BenchmarkGitleaksDetector(b *testing.B) {
	texts, total := rows(b)
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(total))
	b.ResetTimer()
	for range b.N {
		for _, t := range texts {
			d.DetectString(t)
		}
	}
}
