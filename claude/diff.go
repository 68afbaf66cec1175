package claude

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines shown around a change, as
// diff -u does.
const diffContext = 3

// maxDiffCells bounds the line-matching table; past it the changed middle
// is shown as all removed then all added, which is still a correct diff.
const maxDiffCells = 4 << 20

// edit is one line of a diff: ' ' kept, '-' removed, '+' added.
type edit struct {
	op   byte
	line string
}

// unifiedDiff returns a unified diff of a and b, line by line, or "" when
// they are equal. It is for showing a person what install would change.
func unifiedDiff(nameA, nameB string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	edits := diffLines(splitLines(a), splitLines(b))
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", nameA, nameB)
	writeHunks(&out, edits)
	return out.String()
}

func splitLines(data []byte) []string {
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// diffLines matches the unchanged prefix and suffix directly, which is
// most of a settings file, and aligns only the middle by longest common
// subsequence.
func diffLines(a, b []string) []edit {
	prefix := 0
	for prefix < len(a) && prefix < len(b) && a[prefix] == b[prefix] {
		prefix++
	}
	suffix := 0
	for suffix < len(a)-prefix && suffix < len(b)-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	edits := keptLines(a[:prefix])
	edits = append(edits, alignMiddle(a[prefix:len(a)-suffix], b[prefix:len(b)-suffix])...)
	return append(edits, keptLines(a[len(a)-suffix:])...)
}

func keptLines(lines []string) []edit {
	edits := make([]edit, len(lines))
	for i, l := range lines {
		edits[i] = edit{op: ' ', line: l}
	}
	return edits
}

func alignMiddle(a, b []string) []edit {
	if len(a)*len(b) > maxDiffCells {
		return append(changedLines('-', a), changedLines('+', b)...)
	}
	// common[i][j] is the length of the longest common subsequence of
	// a[i:] and b[j:].
	common := make([][]int, len(a)+1)
	for i := range common {
		common[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				common[i][j] = common[i+1][j+1] + 1
			} else {
				common[i][j] = max(common[i+1][j], common[i][j+1])
			}
		}
	}
	var edits []edit
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			edits = append(edits, edit{op: ' ', line: a[i]})
			i, j = i+1, j+1
		case common[i+1][j] >= common[i][j+1]:
			edits = append(edits, edit{op: '-', line: a[i]})
			i++
		default:
			edits = append(edits, edit{op: '+', line: b[j]})
			j++
		}
	}
	edits = append(edits, changedLines('-', a[i:])...)
	return append(edits, changedLines('+', b[j:])...)
}

func changedLines(op byte, lines []string) []edit {
	edits := make([]edit, len(lines))
	for i, l := range lines {
		edits[i] = edit{op: op, line: l}
	}
	return edits
}

// writeHunks groups changes closer than two contexts into one hunk.
func writeHunks(out *strings.Builder, edits []edit) {
	for start := nextChange(edits, 0); start < len(edits); {
		end := hunkEnd(edits, start)
		from, to := max(0, start-diffContext), min(len(edits), end+diffContext)
		writeHunk(out, edits, from, to)
		start = nextChange(edits, to)
	}
}

// hunkEnd returns the index just past the last change of the hunk that
// starts with the change at start.
func hunkEnd(edits []edit, start int) int {
	end := start
	for {
		for end < len(edits) && edits[end].op != ' ' {
			end++
		}
		next := nextChange(edits, end)
		if next >= len(edits) || next-end > 2*diffContext {
			return end
		}
		end = next
	}
}

func nextChange(edits []edit, from int) int {
	for from < len(edits) && edits[from].op == ' ' {
		from++
	}
	return from
}

func writeHunk(out *strings.Builder, edits []edit, from, to int) {
	oldStart, newStart := 1, 1
	for _, e := range edits[:from] {
		if e.op != '+' {
			oldStart++
		}
		if e.op != '-' {
			newStart++
		}
	}
	oldLen, newLen := 0, 0
	for _, e := range edits[from:to] {
		if e.op != '+' {
			oldLen++
		}
		if e.op != '-' {
			newLen++
		}
	}
	// diff -u numbers an empty side by the line before it.
	if oldLen == 0 {
		oldStart--
	}
	if newLen == 0 {
		newStart--
	}
	fmt.Fprintf(out, "@@ -%d,%d +%d,%d @@\n", oldStart, oldLen, newStart, newLen)
	for _, e := range edits[from:to] {
		out.WriteByte(e.op)
		out.WriteString(e.line)
		out.WriteByte('\n')
	}
}
