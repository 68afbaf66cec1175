package main

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// heapAllocated is how many bytes f allocates.
func heapAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// words is n distinct words, space-separated.
func words(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s%d ", prefix, i)
	}
	return b.String()
}

// TestCountAndSizeCapsFailFast: counts over their caps (flag values) are
// refused with exit 2 and a message naming the cap, --require and
// --exclude past theirs likewise, each before anything is sized by them:
// the whole run allocates a few megabytes where the count or the words
// asked for gigabytes. A query past its caps (typed text) is searched by
// its start, with a warning.
func TestCountAndSizeCapsFailFast(t *testing.T) {
	idx := t.TempDir()
	src, _ := filepath.Abs(fixtures)
	common := []string{"--source", src, "--index-dir", idx}
	if r := runCLI(t, append([]string{"index", "-q"}, common...)...); r.code != 0 {
		t.Fatalf("index: %d %s", r.code, r.stderr)
	}
	const huge = "9223372036854775807" // 2^63-1
	excluded := words("x", 100_000)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"jwt", "--no-update", "-n", huge}, "recall: -n/--sessions " + huge + ": at most 100000 (0 means all)\n"},
		{[]string{"jwt", "--no-update", "-n", "4294967296"}, "recall: -n/--sessions 4294967296: at most 100000 (0 means all)\n"},
		{[]string{"jwt", "--no-update", "-m", huge}, "recall: -m/--messages " + huge + ": at most 100000 (0 means all)\n"},
		{[]string{"jwt", "--no-update", "-W", huge}, "recall: -W/--width " + huge + ": the snippet width is at most 1048576 characters (wider than any message recall keeps)\n"},
		{[]string{"jwt", "--no-update", "--context", huge}, "recall: -W/--width " + huge + ": the snippet width is at most 1048576 characters (wider than any message recall keeps)\n"},
		{[]string{"jwt", "--no-update", "-C", "3"}, "recall: -C is recall show's context in messages; a search's snippet width is -W/--width\n"},
		{[]string{"jwt", "--no-update", "--recall-window", "10m," + huge}, "at most 100000 messages"},
		{[]string{"sessions", "-n", huge}, "recall: -n/--sessions " + huge + ": at most 100000 (0 means all)\n"},
		{[]string{"show", "1111111", "-C", huge}, "recall: -C/--context " + huge + ": at most 100000 messages before and after (--full shows the whole session)\n"},
		{[]string{"jwt", "--no-update", "-x", excluded}, "recall: query: --exclude: 688890 bytes of words, at most 65536 (64 KiB)\n"},
		{[]string{"jwt", "--no-update", "-x", words("x", 300)}, "recall: query: --exclude: 300 words, at most 256\n"},
		{append([]string{"jwt", "--no-update"}, strings.Fields(strings.ReplaceAll(words("x", 300), "x", "-r x"))...), "recall: query: --require: 300 words, at most 256\n"},
	} {
		var r runResult
		alloc := heapAllocated(func() { r = runCLI(t, append(tt.args, common...)...) })
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%.60q: exit %d, stderr %q, want 2 and %q", tt.args, r.code, r.stderr, tt.want)
		}
		if alloc > 32<<20 {
			t.Errorf("%.60q: %d MB allocated before the refusal", tt.args, alloc>>20)
		}
	}

	// 40,000 words as arguments, and 10 MB as one: the first words are
	// searched, the rest left out with a warning.
	for _, query := range [][]string{strings.Fields(words("jwt", 40_000)), {"jwt " + strings.Repeat("lorem ipsum ", 900_000)}} {
		var r runResult
		alloc := heapAllocated(func() { r = runCLI(t, append(append([]string{"--no-update"}, query...), common...)...) })
		if r.code > 1 || !strings.Contains(r.stderr, "recall: the query is longer than recall reads (256 words or 64 KiB") {
			t.Errorf("a query of %d arguments: exit %d, stderr %q", len(query), r.code, r.stderr)
		}
		if alloc > 32<<20 {
			t.Errorf("a query of %d arguments: %d MB allocated", len(query), alloc>>20)
		}
	}
}

// TestSplitEscapedIsKongs: the linear split of []string flag values
// gives kong's parts.
func TestSplitEscapedIsKongs(t *testing.T) {
	for _, s := range []string{"", "a", "a,b", "a,,b", "a,", ",a", `a\,b`, `a\b`, `a\`, `\\,x`, `é,ü\,ß`, "a b,c d", `\`, `,\,,`} {
		for _, sep := range []rune{',', -1, ' '} {
			if got, want := splitEscaped(s, sep), kongSplit(s, sep); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
				t.Errorf("splitEscaped(%q, %q) = %q, kong %q", s, sep, got, want)
			}
		}
	}
	// Through the parser: -x a,b is two values, as with kong's decoder
	// (parsed, the search goes on to find there is no index).
	if r := runCLI(t, "jwt", "-x", "foo,bar", "--no-update", "--explain", "--index-dir", t.TempDir()); r.code != 2 || !strings.Contains(r.stderr, "no index to search") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// kongSplit is kong.SplitEscaped (quadratic; for short strings only).
func kongSplit(s string, sep rune) []string { return kong.SplitEscaped(s, sep) }
