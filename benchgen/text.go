package benchgen

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"unicode"

	"github.com/recall-dev/recall/internal/errpath"
)

// TextSource is the pool of real prose and code the generator samples
// from. Sampling sentences from a large real text gives Zipf-like word
// frequencies without having to model them; grouping by package lets a
// session stick to one topic, so terms cluster in sessions the way they
// do in real work.
type TextSource struct {
	sentences []string
	files     []sourceFile
	idents    []string
	packages  []textPackage
	// Origin says where the text came from, for the summary.
	Origin string
}

// textPackage is one directory of the source tree; its fields index the
// flat slices of TextSource.
type textPackage struct {
	dir              string
	sentLo, sentHi   int
	fileLo, fileHi   int
	identLo, identHi int
}

// sourceFile is one Go file, with the start offset of every line so that
// line ranges (Read with offset/limit, Edit snippets) are cheap to cut.
type sourceFile struct {
	path       string // relative to the source root, e.g. "net/http/server.go"
	text       string
	lineStarts []int32
}

// maxSourceFileBytes skips the few huge files (tables, tests of the
// compiler) that would make single tool results unrealistically large.
const maxSourceFileBytes = 160 << 10

// GoSourceRoot finds $(go env GOROOT)/src. The go command is asked first
// because runtime.GOROOT reports the root the binary was built with,
// which may since have moved.
func GoSourceRoot() string {
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		if root := strings.TrimSpace(string(out)); root != "" {
			return filepath.Join(root, "src")
		}
	}
	// Fallback when the go command is not on PATH.
	if root := runtime.GOROOT(); root != "" {
		return filepath.Join(root, "src")
	}
	return ""
}

// LoadTextSource reads prose and code from the Go files under root. The
// walk is lexical, so the pool (and hence the corpus) is the same on
// every run with the same tree.
func LoadTextSource(root string) (*TextSource, error) {
	ts := &TextSource{Origin: root}
	var current *textPackage
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return errpath.Wrap("walk", path, err)
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !isUsableGoFile(d) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return errpath.Wrap("read", path, err)
		}
		if isGenerated(data) {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return errpath.Wrap("relative path of", path, err)
		}
		rel = filepath.ToSlash(rel)
		current = ts.packageFor(current, pathDir(rel))
		ts.addFile(current, rel, string(data))
		return nil
	})
	if err != nil {
		return nil, err
	}
	ts.closePackage(current)
	if len(ts.sentences) < 100 || len(ts.files) < 10 {
		return nil, fmt.Errorf("source tree %s: only %d sentences and %d files, too little text", root, len(ts.sentences), len(ts.files))
	}
	return ts, nil
}

func isUsableGoFile(d fs.DirEntry) bool {
	name := d.Name()
	if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
		return false
	}
	info, err := d.Info()
	return err == nil && info.Size() > 0 && info.Size() <= maxSourceFileBytes
}

// isGenerated follows the Go convention for generated files; their tables
// of numbers would read like nothing a person types or an agent reads.
func isGenerated(data []byte) bool {
	head := data[:min(len(data), 400)]
	return bytes.Contains(head, []byte("Code generated")) && bytes.Contains(head, []byte("DO NOT EDIT"))
}

func pathDir(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return "."
}

// packageFor returns the package record for dir, closing the previous
// one when the walk has moved on to another directory.
func (ts *TextSource) packageFor(current *textPackage, dir string) *textPackage {
	if current != nil && current.dir == dir {
		return current
	}
	ts.closePackage(current)
	return &textPackage{
		dir:     dir,
		sentLo:  len(ts.sentences),
		fileLo:  len(ts.files),
		identLo: len(ts.idents),
	}
}

func (ts *TextSource) closePackage(p *textPackage) {
	if p == nil {
		return
	}
	p.sentHi, p.fileHi, p.identHi = len(ts.sentences), len(ts.files), len(ts.idents)
	// A topic needs something to talk about and something to open.
	if p.sentHi-p.sentLo >= 3 && p.fileHi > p.fileLo {
		ts.packages = append(ts.packages, *p)
	}
}

func (ts *TextSource) addFile(p *textPackage, rel, text string) {
	ts.files = append(ts.files, sourceFile{path: rel, text: text, lineStarts: lineStarts(text)})
	ts.sentences = appendCommentSentences(ts.sentences, text)
	ts.idents = appendDeclaredIdents(ts.idents, text)
}

func lineStarts(text string) []int32 {
	starts := make([]int32, 1, strings.Count(text, "\n")+1)
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' && i+1 < len(text) {
			starts = append(starts, int32(i+1))
		}
	}
	return starts
}

// appendCommentSentences extracts the prose of // comments: consecutive
// comment lines form a paragraph, which is split into sentences. Indented
// comment lines are code examples and directives are not prose.
func appendCommentSentences(out []string, text string) []string {
	var para []string
	flush := func() {
		if len(para) > 0 {
			out = appendSentences(out, strings.Join(para, " "))
			para = para[:0]
		}
	}
	for line := range strings.Lines(text) {
		trimmed := strings.TrimSpace(line)
		body, isComment := strings.CutPrefix(trimmed, "//")
		if !isComment || isDirective(body) || strings.HasPrefix(body, "\t") || strings.HasPrefix(body, "   ") {
			flush()
			continue
		}
		if body = strings.TrimSpace(body); body == "" {
			flush()
			continue
		}
		para = append(para, body)
	}
	flush()
	return out
}

func isDirective(body string) bool {
	return strings.HasPrefix(body, "go:") || strings.HasPrefix(body, "line ") ||
		strings.HasPrefix(body, " +build") || strings.HasPrefix(body, "export ")
}

// appendSentences splits a paragraph at ". " before a capital letter and
// keeps the pieces that read like sentences.
func appendSentences(out []string, para string) []string {
	if strings.HasPrefix(para, "Copyright") || strings.Contains(para, "BSD-style") {
		return out
	}
	for para != "" {
		end := sentenceEnd(para)
		s := strings.TrimSpace(para[:end])
		para = strings.TrimSpace(para[end:])
		if looksLikeProse(s) {
			out = append(out, s)
		}
	}
	return out
}

func sentenceEnd(para string) int {
	for i := 0; i+2 < len(para); i++ {
		if (para[i] == '.' || para[i] == '?' || para[i] == '!') && para[i+1] == ' ' && 'A' <= para[i+2] && para[i+2] <= 'Z' {
			return i + 1
		}
	}
	return len(para)
}

// looksLikeProse keeps sentences of a few words that are mostly letters,
// dropping commented-out code and ASCII art.
func looksLikeProse(s string) bool {
	words := strings.Count(s, " ") + 1
	if words < 4 || words > 60 {
		return false
	}
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) || r == ' ' {
			letters++
		}
	}
	return letters*10 >= len(s)*8
}

// appendDeclaredIdents collects names of top-level funcs and types: what a
// person names in a prompt, greps for, or runs as a test.
func appendDeclaredIdents(out []string, text string) []string {
	for line := range strings.Lines(text) {
		var rest string
		switch {
		case strings.HasPrefix(line, "func "):
			rest = strings.TrimPrefix(line, "func ")
			if strings.HasPrefix(rest, "(") { // method: skip the receiver
				if i := strings.IndexByte(rest, ')'); i >= 0 {
					rest = strings.TrimSpace(rest[i+1:])
				}
			}
		case strings.HasPrefix(line, "type "):
			rest = strings.TrimPrefix(line, "type ")
		default:
			continue
		}
		if name := leadingIdent(rest); len(name) >= 4 {
			out = append(out, name)
		}
	}
	return out
}

func leadingIdent(s string) string {
	for i, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') {
			return s[:i]
		}
	}
	return s
}

// lineRange returns lines [from, to) of f (0-based), without the final newline.
func (f *sourceFile) lineRange(from, to int) string {
	n := len(f.lineStarts)
	from, to = max(0, min(from, n)), max(0, min(to, n))
	if from >= to {
		return ""
	}
	end := len(f.text)
	if to < n {
		end = int(f.lineStarts[to])
	}
	return strings.TrimSuffix(f.text[f.lineStarts[from]:end], "\n")
}

func (f *sourceFile) numLines() int { return len(f.lineStarts) }
