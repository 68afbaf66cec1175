package redact

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/redact/keywords"

	"github.com/recall-dev/recall/redact/redacttest"
)

// messages cuts up to size bytes of Go's source into pieces of about the
// length of a conversation's messages (a paragraph of prose or code), with
// a secret in one piece in fifty.
func messages(b *testing.B, size int) ([]string, int) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	var msgs []string
	total := 0
	shapes := redacttest.Shapes(1)
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || total >= size {
			return fs.SkipAll
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range strings.Split(string(src), "\n\n") {
			if len(msgs)%50 == 49 {
				m += "\n" + shapes[len(msgs)%len(shapes)].Text
			}
			msgs = append(msgs, m)
			total += len(m)
		}
		return nil
	})
	if err != nil && total == 0 {
		b.Skipf("no Go source: %v", err)
	}
	return msgs, total
}

// BenchmarkRedact is the redactor's throughput over message-sized text;
// docs/benchmarks.md compares it with the indexer's.
func BenchmarkRedact(b *testing.B) {
	msgs, total := messages(b, 16<<20)
	r := New()
	for _, m := range msgs {
		r.String(m) // compile the rules that run
	}
	b.SetBytes(int64(total))
	b.ResetTimer()
	for range b.N {
		for _, m := range msgs {
			r.String(m)
		}
	}
}

// BenchmarkRedactRows is the redactor's throughput over the text of an
// index's rows, one per line as `zstdcat IDX/rows-*.zst | cut -f4`
// prints them, from the file $RECALL_REDACT_ROWS (redact/gen has the same
// benchmark for gitleaks' detector).
func BenchmarkRedactRows(b *testing.B) {
	texts, size := rowTexts(b)
	r := New()
	for _, t := range texts {
		r.String(t)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for range b.N {
		for _, t := range texts {
			r.String(t)
		}
	}
}

// BenchmarkPrefilterRows is the keyword scan alone over the texts of
// BenchmarkRedactRows.
func BenchmarkPrefilterRows(b *testing.B) {
	texts, size := rowTexts(b)
	r := New()
	var hits []keywords.Hit
	var lanes [keywords.Lanes][]keywords.Hit
	b.SetBytes(int64(size))
	b.ResetTimer()
	for range b.N {
		for _, t := range texts {
			hits = r.pre.Scan(t, hits[:0], &lanes)
		}
	}
}

// rowTexts reads the row texts of $RECALL_REDACT_ROWS, one per line, and
// their size.
func rowTexts(b *testing.B) ([]string, int) {
	path := os.Getenv("RECALL_REDACT_ROWS")
	if path == "" {
		b.Skip("set RECALL_REDACT_ROWS to a file of row texts (zstdcat IDX/rows-*.zst | cut -f4)")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var texts []string
	for _, line := range strings.Split(string(data), "\n") {
		texts = append(texts, strings.ReplaceAll(line, `\n`, "\n"))
	}
	return texts, len(data)
}

// BenchmarkPrefilter is the keyword scan alone.
func BenchmarkPrefilter(b *testing.B) {
	msgs, total := messages(b, 16<<20)
	r := New()
	var hits []keywords.Hit
	var lanes [keywords.Lanes][]keywords.Hit
	b.SetBytes(int64(total))
	b.ResetTimer()
	for range b.N {
		for _, m := range msgs {
			hits = r.pre.Scan(m, hits[:0], &lanes)
		}
	}
}

// BenchmarkNew is the cost of a redactor before its first use.
func BenchmarkNew(b *testing.B) {
	for range b.N {
		New()
	}
}
