package query

import (
	"bufio"
	"bytes"
	"errors"
	"go/build"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	re2 "github.com/wasilibs/go-re2"
)

// benchCorpusBytes is the size of the benchmark corpus: a few thousand
// messages, as a query over a mid-sized index scans.
const benchCorpusBytes = 8 << 20

// benchMessages builds a deterministic corpus of messages of 100–2000
// bytes from the comments and code of the Go source tree, with the
// typographic characters assistant replies are full of (— → ’ “ ”)
// sprinkled in, so that non-ASCII bytes are as common as in transcripts.
func benchMessages(b *testing.B) [][]byte {
	b.Helper()
	root := filepath.Join(build.Default.GOROOT, "src")
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.Contains(path, "testdata") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil || len(files) == 0 {
		b.Skipf("no Go source tree under %s: %v", root, err)
	}
	typographic := strings.NewReplacer(" - ", " — ", "->", "→", "'", "’", "``", "“", "''", "”")
	var messages [][]byte
	var msg bytes.Buffer
	seed, total := uint32(1), 0
	target := 100 + int(seed%1900)
	// Every tenth file (WalkDir visits them in lexical order), so that the
	// corpus spans the whole tree rather than its first directories.
	for i := 0; i < len(files); i += 10 {
		path := files[i]
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		lines := bufio.NewScanner(f)
		for lines.Scan() && total < benchCorpusBytes {
			line := strings.TrimSpace(lines.Text())
			if line == "" {
				continue
			}
			if len(messages)%3 == 0 {
				line = typographic.Replace(line)
			}
			msg.WriteString(strings.TrimPrefix(line, "// "))
			msg.WriteByte('\n')
			if msg.Len() >= target {
				messages = append(messages, bytes.Clone(msg.Bytes()))
				total += msg.Len()
				msg.Reset()
				seed = seed*1664525 + 1013904223 // LCG: sizes vary, runs agree
				target = 100 + int(seed>>8%1900)
			}
		}
		f.Close()
		if total >= benchCorpusBytes {
			break
		}
	}
	return messages
}

func corpusSize(messages [][]byte) int64 {
	var n int64
	for _, m := range messages {
		n += int64(len(m))
	}
	return n
}

// benchCase is one term of BenchmarkMatch, also run through rg.
type benchCase struct {
	name  string
	args  []string // positional arguments
	opt   MatchOptions
	rgArg []string // the same search for rg
}

var benchCases = []benchCase{
	{"rare_word", []string{"deadlock"}, MatchOptions{}, []string{"-i", "deadlock"}},
	{"absent_word", []string{"kubernetes"}, MatchOptions{}, []string{"-i", "kubernetes"}},
	{"common_word", []string{"value"}, MatchOptions{}, []string{"-i", "value"}},
	{"very_common_word", []string{"the"}, MatchOptions{}, []string{"-i", "the"}},
	{"word_with_s", []string{"session"}, MatchOptions{}, []string{"-i", "session"}},
	{"or_of_three", []string{"mutex goroutine deadlock"}, MatchOptions{}, []string{"-i", "-e", "mutex", "-e", "goroutine", "-e", "deadlock"}},
	{"phrase", []string{`"garbage collector"`}, MatchOptions{}, []string{"-i", "garbage collector"}},
	{"wildcard", []string{"read_only"}, MatchOptions{}, []string{"-i", "read.only"}},
	{"unicode_word", []string{"naïve"}, MatchOptions{}, []string{"-i", "naïve"}},
	{"case_sensitive", []string{"Deadlock"}, MatchOptions{CaseSensitive: true}, []string{"-s", "Deadlock"}},
	{"whole_word", []string{"lock"}, MatchOptions{Word: true}, []string{"-i", "-w", "lock"}},
	{"regex_alternation", []string{"mutex|deadlock"}, MatchOptions{Regex: true}, []string{"-i", "mutex|deadlock"}},
	{"regex_class", []string{`dead\w+`}, MatchOptions{Regex: true}, []string{"-i", `dead\w+`}},
}

// BenchmarkMatch runs each term over every message of the corpus, as a
// search does row by row.
func BenchmarkMatch(b *testing.B) {
	messages := benchMessages(b)
	size := corpusSize(messages)
	for _, bc := range benchCases {
		q, err := ParseQuery(bc.args, nil, nil, bc.opt)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			hits := 0
			for b.Loop() {
				hits = 0
				for _, m := range messages {
					if q.MatchMessage(m) {
						hits++
					}
				}
			}
			b.ReportMetric(float64(hits), "hits")
		})
	}
}

// BenchmarkFindAll measures locating every match, which only the
// messages that match need.
func BenchmarkFindAll(b *testing.B) {
	messages := benchMessages(b)
	for _, bc := range benchCases[:4] {
		q, err := ParseQuery(bc.args, nil, nil, bc.opt)
		if err != nil {
			b.Fatal(err)
		}
		term := q.Positive()[0]
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(corpusSize(messages))
			b.ReportAllocs()
			var dst []Span
			for b.Loop() {
				for _, m := range messages {
					dst = term.FindAll(m, dst[:0])
				}
			}
		})
	}
}

// BenchmarkRipgrep runs rg over the same corpus, one message per line, as
// the yardstick; the time includes starting the process (a few ms). It is
// skipped where rg is not installed.
func BenchmarkRipgrep(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("rg not installed")
	}
	messages := benchMessages(b)
	var blob bytes.Buffer
	for _, m := range messages {
		blob.Write(bytes.ReplaceAll(m, []byte("\n"), []byte(" ")))
		blob.WriteByte('\n')
	}
	path := filepath.Join(b.TempDir(), "corpus.txt")
	if err := os.WriteFile(path, blob.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(blob.Len()))
			for b.Loop() {
				// -c: count, -j1: one thread, as BenchmarkMatch uses one.
				cmd := exec.Command(rg, append([]string{"-c", "-j1", "--no-mmap"}, append(bc.rgArg, path)...)...)
				// Exit status 1 means no line matched; 2 is an error.
				var exit *exec.ExitError
				if err := cmd.Run(); err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRegexEngines compares the standard library with go-re2 on one
// text of each size; re2MinBytes comes from where the lines cross.
func BenchmarkRegexEngines(b *testing.B) {
	messages := benchMessages(b)
	blob := bytes.Join(messages, []byte("\n"))
	for _, pattern := range []string{`(?i)mutex|deadlock`, `(?i)dead\w+`, `(?i)(?:^|[^\p{L}\p{N}_])(lock)(?:[^\p{L}\p{N}_]|$)`, `kubernetes`} {
		std := regexp.MustCompile(pattern)
		fast := re2.MustCompile(pattern)
		for _, size := range []int{256, 1024, 4096, 16384} {
			texts := chunks(blob, size)
			for _, engine := range []struct {
				name string
				re   regexEngine
			}{{"stdlib", std}, {"go-re2", fast}} {
				b.Run(pattern+"/"+strconv.Itoa(size)+"/"+engine.name, func(b *testing.B) {
					b.SetBytes(int64(len(texts) * size))
					for b.Loop() {
						for _, t := range texts {
							engine.re.Match(t)
						}
					}
				})
			}
		}
	}
}

// chunks cuts up to 4 MB of blob into texts of size bytes.
func chunks(blob []byte, size int) [][]byte {
	var texts [][]byte
	for len(blob) >= size && len(texts)*size < 4<<20 {
		texts = append(texts, blob[:size])
		blob = blob[size:]
	}
	return texts
}
