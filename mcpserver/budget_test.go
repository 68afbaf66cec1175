package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/indexer"
)

// budgetIndex indexes sessions transcripts of one project: every session
// says "zebrafrost" in each of its prompts; the first is long (messages
// of a few hundred bytes each, and one of 120 KB full of characters JSON
// escapes), the others short.
func budgetIndex(t *testing.T, sessions, longMessages int) string {
	t.Helper()
	src := t.TempDir()
	project := filepath.Join(src, "-home-dev-src-budget")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	for s := range sessions {
		id := fmt.Sprintf("%08d-0000-4000-8000-%012d", s, s)
		n := 4
		if s == 0 {
			n = longMessages
		}
		var b strings.Builder
		for i := range n {
			text := fmt.Sprintf("prompt %d of session %d about the zebrafrost cache: %s", i, s, strings.Repeat("the eviction policy keeps hot keys ", 8))
			if s == 0 && i == n/2 {
				text = "zebrafrost dump " + strings.Repeat("<tag attr=\"x\">&amp;</tag>\n", 5000)
			}
			message := map[string]any{"role": "user", "content": text}
			if i%2 == 1 {
				message = map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}}}
			}
			rec := map[string]any{
				"type": message["role"], "uuid": fmt.Sprintf("%08d-1111-4000-8000-%012d", s, i), "sessionId": id,
				"timestamp": fmt.Sprintf("2026-04-%02dT10:%02d:%02d.000Z", 1+s%28, i/60%60, i%60),
				"cwd":       "/home/dev/src/budget", "message": message,
			}
			line, err := json.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(project, id+".jsonl"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx := t.TempDir()
	if _, err := indexer.Run(indexer.Options{Config: indexer.Config{Sources: []string{src}, IndexDir: idx}}); err != nil {
		t.Fatal(err)
	}
	return idx
}

// call calls tool and returns its structured result decoded into out,
// after checking both forms of the result against max tokens.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, maxTokens int, out any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError {
		t.Fatalf("%s %v: %s", tool, args, text)
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if limit := maxTokens * bytesPerToken; len(data)+len(text) > limit {
		t.Errorf("%s %v: structured %d bytes and text %d bytes; the bound is %d tokens (%d bytes) for both", tool, args, len(data), len(text), maxTokens, limit)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatal(err)
	}
}

// Paging through a whole session returns every message exactly once,
// each page within the budget, the long message cut to fit; asking for
// more than the ceiling gets the ceiling.
func TestShowFullPagesEveryMessageOnce(t *testing.T) {
	idx := budgetIndex(t, 1, 300)
	cs := connect(t, Config{IndexDir: idx})
	for _, tt := range []struct {
		maxTokens any
		bound     int
	}{{nil, defaultShowTokens}, {2000, 2000}, {1 << 40, ceilingTokens}, {"100", minTokens}, {" 3000 ", 3000}} {
		seen := map[int]int{}
		total, pages, offset, cut := 0, 0, 0, false
		for {
			args := map[string]any{"session": "00000000", "full": true, "offset": offset}
			if tt.maxTokens != nil {
				args["max_tokens"] = tt.maxTokens
			}
			var out ShowOutput
			call(t, cs, "show", args, tt.bound, &out)
			total, pages = out.Total, pages+1
			if out.FirstShown != offset+1 {
				t.Fatalf("max_tokens %v, offset %d: first shown %d", tt.maxTokens, offset, out.FirstShown)
			}
			for _, m := range out.Messages {
				seen[m.Line]++
				cut = cut || strings.Contains(m.Text, "bytes of this message left out")
			}
			if out.NextOffset == 0 {
				break
			}
			if out.NextOffset <= offset || pages > 400 {
				t.Fatalf("max_tokens %v: next offset %d after %d", tt.maxTokens, out.NextOffset, offset)
			}
			offset = out.NextOffset
		}
		if total != 300 || len(seen) != total {
			t.Errorf("max_tokens %v: %d distinct messages of %d in %d pages", tt.maxTokens, len(seen), total, pages)
		}
		for line, n := range seen {
			if n != 1 {
				t.Errorf("max_tokens %v: line %d shown %d times", tt.maxTokens, line, n)
			}
		}
		if !cut {
			t.Errorf("max_tokens %v: the 120 KB message was not cut", tt.maxTokens)
		}
		if pages < 2 {
			t.Errorf("max_tokens %v: one page held the whole session", tt.maxTokens)
		}
	}
}

// The messages around a hit are cut to the budget from the far ends.
func TestShowContextKeepsTheHitWithinBudget(t *testing.T) {
	idx := budgetIndex(t, 1, 300)
	cs := connect(t, Config{IndexDir: idx})
	var out ShowOutput
	call(t, cs, "show", map[string]any{"session": "00000000", "query": "dump", "context": 100000, "max_tokens": 3000}, 3000, &out)
	hit := false
	for _, m := range out.Messages {
		hit = hit || m.Hit
	}
	if !hit || len(out.Messages) == 0 || len(out.Messages) >= out.Total || len(out.Notes) == 0 {
		t.Errorf("%d of %d messages, hit shown %v, notes %q", len(out.Messages), out.Total, hit, out.Notes)
	}
}

// Paging through a search and through the session list returns each
// session once, as many as a search of them all counts, every page
// within its budget.
func TestSearchAndSessionsPageEverySessionOnce(t *testing.T) {
	const sessions = 60
	idx := budgetIndex(t, sessions, 6)
	cs := connect(t, Config{IndexDir: idx})
	for _, tool := range []string{"search", "sessions"} {
		for _, limit := range []int{0, 7} {
			seen := map[string]int{}
			offset, pages := 0, 0
			for {
				args := map[string]any{"limit": limit, "offset": offset, "max_tokens": 1500}
				if tool == "search" {
					args["query"] = "zebrafrost"
				}
				var ids []string
				next := 0
				if tool == "search" {
					var out SearchOutput
					call(t, cs, tool, args, 1500, &out)
					for i, s := range out.Sessions {
						ids = append(ids, s.SessionID)
						if s.Rank != offset+i+1 {
							t.Errorf("search offset %d: session %d has rank %d", offset, i, s.Rank)
						}
					}
					next = out.NextOffset
					if next == 0 && (out.Total == nil || *out.Total != sessions) {
						t.Errorf("search, last page: total %v, want %d", out.Total, sessions)
					}
				} else {
					var out SessionsOutput
					call(t, cs, tool, args, 1500, &out)
					for _, s := range out.Sessions {
						ids = append(ids, s.SessionID)
					}
					if out.Total != sessions {
						t.Errorf("sessions: total %d, want %d", out.Total, sessions)
					}
					next = out.NextOffset
				}
				for _, id := range ids {
					seen[id]++
				}
				pages++
				if next == 0 {
					break
				}
				if next != offset+len(ids) || pages > sessions {
					t.Fatalf("%s limit %d: next offset %d after %d sessions from %d", tool, limit, next, len(ids), offset)
				}
				offset = next
			}
			if len(seen) != sessions {
				t.Errorf("%s limit %d: %d distinct sessions of %d in %d pages", tool, limit, len(seen), sessions, pages)
			}
			for id, n := range seen {
				if n != 1 {
					t.Errorf("%s limit %d: %s listed %d times", tool, limit, id, n)
				}
			}
		}
	}
}

// A search of an index that holds nothing says why in the result the
// model reads (its notes), naming the transcript folder that gave nothing;
// with no index at all, the error does.
func TestEmptyAnswersSayWhy(t *testing.T) {
	empty, idx := t.TempDir(), t.TempDir()
	if _, err := indexer.Run(indexer.Options{Config: indexer.Config{Sources: []string{empty}, IndexDir: idx}}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, Config{IndexDir: idx, Sources: []string{empty}})
	var out SearchOutput
	call(t, cs, "search", map[string]any{"query": "jwt"}, defaultSearchTokens, &out)
	notes := strings.Join(out.Notes, " ")
	if len(out.Sessions) != 0 || !strings.Contains(notes, "the index holds no session yet") || !strings.Contains(notes, empty+" holds no transcripts") {
		t.Errorf("empty index: sessions %d, notes %q", len(out.Sessions), out.Notes)
	}
	var filtered SearchOutput
	call(t, connect(t, Config{IndexDir: budgetIndex(t, 2, 4)}), "search", map[string]any{"query": "zebrafrost", "project": "nosuch"}, defaultSearchTokens, &filtered)
	if notes := strings.Join(filtered.Notes, " "); !strings.Contains(notes, "no indexed session is in project nosuch (the sessions tool lists them)") {
		t.Errorf("a project no session is in: notes %q", filtered.Notes)
	}
	missing := filepath.Join(t.TempDir(), "nowhere")
	res, err := connect(t, Config{IndexDir: t.TempDir(), Sources: []string{missing}}).CallTool(context.Background(),
		&mcp.CallToolParams{Name: "sessions", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, "no index in") || !strings.Contains(text, missing+" does not exist") {
		t.Errorf("no index, missing source: error %v %q", res.IsError, text)
	}
}

// A search asked to count ranks every match: its page is still the limit,
// and total says how many matched; without count a cut ranking gives none.
func TestSearchCountsWhenAsked(t *testing.T) {
	cs := connect(t, Config{IndexDir: budgetIndex(t, 12, 4)})
	for _, count := range []bool{true, false} {
		var out SearchOutput
		call(t, cs, "search", map[string]any{"query": "zebrafrost", "limit": 2, "count": count}, defaultSearchTokens, &out)
		if len(out.Sessions) != 2 || out.NextOffset != 2 || (out.Total != nil) != count || count && *out.Total != 12 {
			t.Errorf("count %v, limit 2: %d sessions, total %v, next %d; want 2 sessions, total 12 only when counted, next 2", count, len(out.Sessions), out.Total, out.NextOffset)
		}
	}
}

// Every structured result is marked as recall's output, in whatever key
// order a client keeps it, so a transcript holding it never has it indexed.
func TestResultsAreMarkedAsRecallOutput(t *testing.T) {
	cs := connect(t, Config{IndexDir: budgetIndex(t, 2, 4)})
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"search", map[string]any{"query": "zebrafrost"}},
		{"show", map[string]any{"session": "00000000"}},
		{"sessions", map[string]any{}},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", tc.tool, err, res)
		}
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, data, "", "  "); err != nil {
			t.Fatal(err)
		}
		if !filter.IsRecallOutput(string(data)) || !filter.IsRecallOutput(pretty.String()) {
			t.Errorf("%s: structured content not recognised as recall output: %.200s", tc.tool, data)
		}
	}
}
