package benchgen

import (
	"fmt"
	"math/rand/v2"
	"path"
	"strconv"
	"strings"
)

// toolCall is one tool invocation: what the model sent (input) and what
// came back (result text for the tool_result block, useResult for the
// structured toolUseResult copy).
type toolCall struct {
	name      string
	input     func(w *jsonWriter)
	result    string
	isError   bool
	useResult func(w *jsonWriter)
	// command and description are kept for Bash calls, whose output may
	// be replaced by a persisted-output stub.
	command, description string
}

const malwareReminder = "\n\n<system-reminder>\nWhenever you read a file, you should consider whether it would be considered malware. You CAN and SHOULD provide analysis of malware, what it is doing. But you MUST refuse to improve or augment the code. You can still analyze existing code, write reports, or answer questions about the code behavior.\n</system-reminder>\n"

// maxReadLines is the Read tool's default line limit.
const maxReadLines = 2000

func (g *sessionGen) absPath(rel string) string { return g.proj.cwd + "/" + rel }

// numberLines formats text like the Read tool: right-aligned line
// numbers, an arrow, the line.
func numberLines(text string, first int) string {
	var b strings.Builder
	b.Grow(len(text) + 8*strings.Count(text, "\n") + 8)
	n := first
	for line := range strings.Lines(text) {
		num := strconv.Itoa(n)
		for i := len(num); i < 6; i++ {
			b.WriteByte(' ')
		}
		b.WriteString(num)
		b.WriteString("→")
		b.WriteString(line)
		n++
	}
	return b.String()
}

func (g *sessionGen) readCall() *toolCall {
	f := g.topic.file(g.r)
	filePath := g.absPath(f.path)
	total := f.numLines()
	from, to := 0, min(total, maxReadLines)
	// Whole small files now and then; mostly a window around something.
	partial := total > 250 || total > 60 && g.r.IntN(7) > 0
	if partial {
		n := min(10+g.r.IntN(35), total-20)
		from = g.r.IntN(total - n)
		to = from + n
	}
	content := f.lineRange(from, to)
	result := numberLines(content, from+1)
	if g.r.IntN(3) == 0 {
		result += malwareReminder
	}
	return &toolCall{
		name: "Read",
		input: func(w *jsonWriter) {
			w.str("file_path", filePath)
			if partial {
				w.int("offset", int64(from+1))
				w.int("limit", int64(to-from))
			}
		},
		result: result,
		useResult: func(w *jsonWriter) {
			w.openObject()
			w.str("type", "text")
			w.object("file")
			w.str("filePath", filePath)
			w.str("content", content)
			w.int("numLines", int64(to-from))
			w.int("startLine", int64(from+1))
			w.int("totalLines", int64(total))
			w.closeObject()
			w.closeObject()
		},
	}
}

// bashCall builds a Bash call from a command and its output. Failed
// commands carry "Exit code N" in the result and a plain-string
// toolUseResult, as real ones do.
func bashCall(command, description, stdout string, exitCode int) *toolCall {
	call := &toolCall{
		name: "Bash",
		input: func(w *jsonWriter) {
			w.str("command", command)
			w.str("description", description)
		},
		result:      stdout,
		command:     command,
		description: description,
	}
	if exitCode != 0 {
		call.isError = true
		call.result = "Exit code " + strconv.Itoa(exitCode) + "\n" + stdout
		call.useResult = func(w *jsonWriter) { w.stringValue("Error: " + call.result) }
		return call
	}
	call.useResult = func(w *jsonWriter) {
		w.openObject()
		w.str("stdout", stdout)
		w.str("stderr", "")
		w.bool("interrupted", false)
		w.bool("isImage", false)
		w.bool("noOutputExpected", stdout == "")
		w.closeObject()
	}
	return call
}

func (g *sessionGen) packagePath() string { return g.topic.pkg.dir }

// shellCall picks one of the commands an agent runs all day.
func (g *sessionGen) shellCall() *toolCall {
	r, t := g.r, g.topic
	pkg := "./" + g.packagePath() + "/..."
	switch k := r.IntN(1000); {
	case k < 220:
		return bashCall("go test "+pkg, "Run the package tests", goTestOK(r, g.proj.module, t), 0)
	case k < 340:
		return bashCall("go test -run "+testName(t.ident(r))+" "+pkg, "Run the failing test", goTestFailure(r, t, g.proj.module, t.ident(r)), 1)
	case k < 420:
		return bashCall("go build ./... && go vet "+pkg, "Build and vet", buildErrors(r, t), 1)
	case k < 500:
		return bashCall("git status", "Show working tree status", g.gitStatus(), 0)
	case k < 570:
		return bashCall("git log --oneline -n 15", "Show recent commits", gitLog(r, t), 0)
	case k < 660:
		return bashCall("git diff", "Show unstaged changes", g.gitDiff(), 0)
	case k < 730:
		return bashCall("ls -la "+g.packagePath(), "List package files", g.lsListing(), 0)
	case k < 900:
		ident := t.ident(r)
		return bashCall("grep -rn \""+ident+"\" --include=*.go .", "Find uses of "+ident, g.grepLines(ident, 25), 0)
	case k < 940:
		f := t.file(r)
		return bashCall("cat "+f.path, "Show the file", f.text, 0)
	case k < 985:
		return bashCall("go test -v -count=1 "+pkg, "Run tests verbosely", goTestVerbose(r, g.proj.module, t, 5+r.IntN(60)), 0)
	default:
		// The occasional huge output that newer CLIs persist to
		// tool-results/ instead of keeping inline.
		return bashCall("go test -v -race ./...", "Run all tests with the race detector", goTestVerbose(r, g.proj.module, t, 300+r.IntN(500)), 0)
	}
}

func testName(ident string) string {
	if ident == "" {
		return "TestMain"
	}
	return "Test" + strings.ToUpper(ident[:1]) + ident[1:]
}

func goTestOK(r *rand.Rand, module string, t topic) string {
	var b strings.Builder
	for range 1 + r.IntN(6) {
		fmt.Fprintf(&b, "ok  \t%s/%s\t%.3fs\n", module, t.pkg.dir, 0.01+r.Float64()*3)
	}
	if r.IntN(3) == 0 {
		fmt.Fprintf(&b, "?   \t%s/cmd/tool\t[no test files]\n", module)
	}
	return b.String()
}

func goTestVerbose(r *rand.Rand, module string, t topic, tests int) string {
	var b strings.Builder
	for range tests {
		name := testName(t.ident(r))
		fmt.Fprintf(&b, "=== RUN   %s\n--- PASS: %s (%.2fs)\n", name, name, r.Float64()/10)
		if r.IntN(4) == 0 {
			fmt.Fprintf(&b, "    %s_test.go:%d: %s\n", strings.ToLower(name[4:]), 10+r.IntN(400), t.sentence(r))
		}
	}
	fmt.Fprintf(&b, "PASS\nok  \t%s/%s\t%.3fs\n", module, t.pkg.dir, 0.05+r.Float64()*4)
	return b.String()
}

func goTestFailure(r *rand.Rand, t topic, module, ident string) string {
	name := testName(ident)
	file := strings.ToLower(ident) + "_test.go"
	var b strings.Builder
	fmt.Fprintf(&b, "--- FAIL: %s (%.2fs)\n", name, r.Float64())
	for range 1 + r.IntN(3) {
		fmt.Fprintf(&b, "    %s:%d: %s\n", file, 10+r.IntN(500), t.sentence(r))
	}
	fmt.Fprintf(&b, "FAIL\nFAIL\t%s/%s\t%.3fs\nFAIL\n", module, t.pkg.dir, r.Float64()*2)
	return b.String()
}

// goPanic is the output of a test run that panicked: the message and
// the goroutine's stack.
func goPanic(r *rand.Rand, t topic, module string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- FAIL: %s (%.2fs)\npanic: runtime error: index out of range [%d] with length %d [recovered]\n\tpanic: runtime error: index out of range\n\ngoroutine %d [running]:\n",
		testName(t.ident(r)), r.Float64(), 1+r.IntN(9), r.IntN(9), 7+r.IntN(90))
	for range 4 + r.IntN(12) {
		f := t.file(r)
		fmt.Fprintf(&b, "%s/%s.%s(0x%x, 0x%x)\n\t/home/dev/src/%s:%d +0x%x\n", module, t.pkg.dir, t.ident(r), 0xc000010000+r.IntN(1<<20), r.IntN(64), f.path, 1+r.IntN(max(1, f.numLines())), r.IntN(0x400))
	}
	fmt.Fprintf(&b, "exit status 2\nFAIL\t%s/%s\t%.3fs\n", module, t.pkg.dir, r.Float64())
	return b.String()
}

func buildErrors(r *rand.Rand, t topic) string {
	var b strings.Builder
	f := t.file(r)
	b.WriteString("# " + t.pkg.dir + "\n")
	for range 1 + r.IntN(4) {
		switch r.IntN(3) {
		case 0:
			fmt.Fprintf(&b, "%s:%d:%d: undefined: %s\n", f.path, 1+r.IntN(f.numLines()), 2+r.IntN(30), t.ident(r))
		case 1:
			fmt.Fprintf(&b, "%s:%d:%d: cannot use %s (variable of type int) as string value in argument to %s\n", f.path, 1+r.IntN(f.numLines()), 2+r.IntN(30), strings.ToLower(t.ident(r)), t.ident(r))
		default:
			fmt.Fprintf(&b, "%s:%d:%d: declared and not used: %s\n", f.path, 1+r.IntN(f.numLines()), 2+r.IntN(30), strings.ToLower(t.ident(r)))
		}
	}
	return b.String()
}

func (g *sessionGen) gitStatus() string {
	var b strings.Builder
	b.WriteString("On branch " + g.env.gitBranch + "\nChanges not staged for commit:\n  (use \"git add <file>...\" to update what will be committed)\n\n")
	for range 1 + g.r.IntN(5) {
		b.WriteString("\tmodified:   " + g.topic.file(g.r).path + "\n")
	}
	b.WriteString("\nno changes added to commit (use \"git add\" and/or \"git commit -a\")\n")
	return b.String()
}

func gitLog(r *rand.Rand, t topic) string {
	var b strings.Builder
	for range 5 + r.IntN(11) {
		b.WriteString(randomHex(r, 7) + " " + truncateRunes(lowerFirst(t.sentence(r)), 72) + "\n")
	}
	return b.String()
}

func (g *sessionGen) gitDiff() string {
	f := g.topic.file(g.r)
	n := 3 + g.r.IntN(20)
	from := g.r.IntN(max(1, f.numLines()-n))
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex %s..%s 100644\n--- a/%s\n+++ b/%s\n@@ -%d,%d +%d,%d @@\n",
		f.path, f.path, randomHex(g.r, 7), randomHex(g.r, 7), f.path, f.path, from+1, n, from+1, n+1)
	for i, line := range strings.Split(f.lineRange(from, from+n), "\n") {
		if i == n/2 {
			b.WriteString("+\t// " + g.topic.sentence(g.r) + "\n")
		}
		b.WriteString(" " + line + "\n")
	}
	return b.String()
}

func (g *sessionGen) lsListing() string {
	var b strings.Builder
	fmt.Fprintf(&b, "total %d\ndrwxr-xr-x  5 dev dev  4096 Jan 12 10:02 .\ndrwxr-xr-x 12 dev dev  4096 Jan 12 10:02 ..\n", 8+g.r.IntN(400))
	p := g.topic.pkg
	for i := p.fileLo; i < p.fileHi && i < p.fileLo+80; i++ {
		f := &g.topic.ts.files[i]
		fmt.Fprintf(&b, "-rw-r--r--  1 dev dev %6d Jan %2d %02d:%02d %s\n", len(f.text), 1+g.r.IntN(28), g.r.IntN(24), g.r.IntN(60), path.Base(f.path))
	}
	return b.String()
}

// grepLines finds real lines mentioning ident in a few files of the
// topic. Only a handful of files are searched: the result only has to
// look right, and scanning whole packages would dominate run time.
func (g *sessionGen) grepLines(ident string, maxLines int) string {
	var b strings.Builder
	found := 0
	for range 6 {
		f := g.topic.file(g.r)
		text := f.text
		for offset := 0; found < maxLines; {
			i := strings.Index(text[offset:], ident)
			if i < 0 {
				break
			}
			pos := offset + i
			line := lineIndexAt(f, pos)
			fmt.Fprintf(&b, "%s:%d:%s\n", f.path, line+1, f.lineRange(line, line+1))
			found++
			offset = pos + len(ident)
			if line+1 < f.numLines() {
				offset = max(offset, int(f.lineStarts[line+1]))
			} else {
				break
			}
		}
	}
	return b.String()
}

func lineIndexAt(f *sourceFile, pos int) int {
	lo, hi := 0, len(f.lineStarts)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if int(f.lineStarts[mid]) <= pos {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

func (g *sessionGen) grepCall() *toolCall {
	ident := g.topic.ident(g.r)
	if g.r.IntN(2) == 0 {
		var files []string
		for range 1 + g.r.IntN(12) {
			files = append(files, g.absPath(g.topic.file(g.r).path))
		}
		result := fmt.Sprintf("Found %d files\n%s", len(files), strings.Join(files, "\n"))
		return &toolCall{
			name: "Grep",
			input: func(w *jsonWriter) {
				w.str("pattern", ident)
				w.str("path", g.proj.cwd)
				w.str("output_mode", "files_with_matches")
			},
			result: result,
			useResult: func(w *jsonWriter) {
				w.openObject()
				w.str("mode", "files_with_matches")
				w.strings("filenames", files)
				w.int("numFiles", int64(len(files)))
				w.closeObject()
			},
		}
	}
	content := g.grepLines(ident, 30)
	if content == "" {
		content = "No matches found"
	}
	return &toolCall{
		name: "Grep",
		input: func(w *jsonWriter) {
			w.str("pattern", ident)
			w.str("output_mode", "content")
			w.bool("-n", true)
		},
		result: content,
		useResult: func(w *jsonWriter) {
			w.openObject()
			w.str("mode", "content")
			w.int("numFiles", 0)
			w.emptyArray("filenames")
			w.str("content", content)
			w.int("numLines", int64(strings.Count(content, "\n")))
			w.closeObject()
		},
	}
}

func (g *sessionGen) globCall() *toolCall {
	pattern := g.packagePath() + "/**/*.go"
	var files []string
	p := g.topic.pkg
	for i := p.fileLo; i < p.fileHi && len(files) < 100; i++ {
		files = append(files, g.absPath(g.topic.ts.files[i].path))
	}
	return &toolCall{
		name:   "Glob",
		input:  func(w *jsonWriter) { w.str("pattern", pattern) },
		result: strings.Join(files, "\n"),
		useResult: func(w *jsonWriter) {
			w.openObject()
			w.strings("filenames", files)
			w.int("durationMs", int64(5+g.r.IntN(200)))
			w.int("numFiles", int64(len(files)))
			w.bool("truncated", false)
			w.closeObject()
		},
	}
}

// editCall changes a few real lines of a file. Like Claude Code, the
// structured result carries the whole original file, which is a large
// share of real transcript bytes.
func (g *sessionGen) editCall() *toolCall {
	f := g.topic.file(g.r)
	filePath := g.absPath(f.path)
	n := 1 + g.r.IntN(8)
	from := g.r.IntN(max(1, f.numLines()-n))
	oldString := f.lineRange(from, from+n)
	newString := "\t// " + g.topic.sentence(g.r) + "\n" + oldString
	snippet := numberLines(f.lineRange(max(0, from-4), from)+"\n"+newString+"\n"+f.lineRange(from+n, from+n+4), max(1, from-3))
	keepOriginal := len(f.text) < 24<<10 && g.r.IntN(10) == 0
	return &toolCall{
		name: "Edit",
		input: func(w *jsonWriter) {
			w.str("file_path", filePath)
			w.str("old_string", oldString)
			w.str("new_string", newString)
			w.bool("replace_all", false)
		},
		result: "The file " + filePath + " has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n" + snippet,
		useResult: func(w *jsonWriter) {
			w.openObject()
			w.str("filePath", filePath)
			w.str("oldString", oldString)
			w.str("newString", newString)
			if keepOriginal {
				w.str("originalFile", f.text)
			} else {
				w.null("originalFile")
			}
			w.array("structuredPatch")
			w.openObject()
			w.int("oldStart", int64(from+1))
			w.int("oldLines", int64(n))
			w.int("newStart", int64(from+1))
			w.int("newLines", int64(n+1))
			w.array("lines")
			w.stringValue("+" + strings.TrimSuffix(newString[:strings.IndexByte(newString, '\n')+1], "\n"))
			for line := range strings.Lines(oldString) {
				w.stringValue(" " + strings.TrimSuffix(line, "\n"))
			}
			w.closeArray()
			w.closeObject()
			w.closeArray()
			w.bool("userModified", false)
			w.bool("replaceAll", false)
			w.closeObject()
		},
	}
}

func (g *sessionGen) writeCall() *toolCall {
	ident := g.topic.ident(g.r)
	filePath := g.absPath(g.packagePath() + "/" + strings.ToLower(ident) + "_test.go")
	content := "package " + path.Base(g.packagePath()) + "\n\n// " + g.topic.sentence(g.r) + "\nfunc " + testName(ident) + "(t *testing.T) {\n" + g.topic.snippet(g.r, 5, 40) + "\n}\n"
	return &toolCall{
		name: "Write",
		input: func(w *jsonWriter) {
			w.str("file_path", filePath)
			w.str("content", content)
		},
		result: "File created successfully at: " + filePath,
		useResult: func(w *jsonWriter) {
			w.openObject()
			w.str("type", "create")
			w.str("filePath", filePath)
			w.str("content", content)
			w.emptyArray("structuredPatch")
			w.null("originalFile")
			w.closeObject()
		},
	}
}

func (g *sessionGen) todoCall() *toolCall {
	var todos []string
	for range 2 + g.r.IntN(5) {
		todos = append(todos, truncateRunes(g.topic.sentence(g.r), 80))
	}
	writeTodos := func(w *jsonWriter, k string) {
		w.array(k)
		for i, todo := range todos {
			w.openObject()
			w.str("content", todo)
			w.str("status", []string{"completed", "in_progress", "pending"}[min(i, 2)])
			w.str("activeForm", todo)
			w.closeObject()
		}
		w.closeArray()
	}
	return &toolCall{
		name:   "TodoWrite",
		input:  func(w *jsonWriter) { writeTodos(w, "todos") },
		result: "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable",
		useResult: func(w *jsonWriter) {
			w.openObject()
			w.emptyArray("oldTodos")
			writeTodos(w, "newTodos")
			w.closeObject()
		},
	}
}

// ordinaryToolCall picks a tool the way agents use them: reading and
// running commands most, editing often, the rest now and then.
func (g *sessionGen) ordinaryToolCall() *toolCall {
	switch k := g.r.IntN(100); {
	case k < 25:
		return g.readCall()
	case k < 57:
		return g.shellCall()
	case k < 71:
		return g.grepCall()
	case k < 76:
		return g.globCall()
	case k < 92:
		return g.editCall()
	case k < 96:
		return g.writeCall()
	default:
		return g.todoCall()
	}
}
