package evalcorpus

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseQueries(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    Query
		wantErr string
	}{
		{name: "keyword", line: "keyword\tjwt refresh\t-\tjwt-refresh",
			want: Query{Kind: KindKeyword, Text: "jwt refresh", Topic: "jwt-refresh"}},
		{name: "flags", line: "keyword\tlock\t--require terraform --exclude test --require state --scope session\tx",
			want: Query{Kind: KindKeyword, Text: "lock", Topic: "x", Flags: "--require terraform --exclude test --require state --scope session",
				Require: []string{"terraform", "state"}, Exclude: []string{"test"}, Scope: "session"}},
		{name: "cwd and project", line: "question\twhy?\t--cwd /src/a --project a\tx",
			want: Query{Kind: KindQuestion, Text: "why?", Topic: "x", Flags: "--cwd /src/a --project a", Cwd: "/src/a", Projects: []string{"a"}}},
		{name: "three fields", line: "keyword\tjwt\tx", wantErr: "4 tab-separated fields"},
		{name: "bad kind", line: "phrase\tjwt\t-\tx", wantErr: `kind "phrase"`},
		{name: "empty query", line: "keyword\t \t-\tx", wantErr: "empty"},
		{name: "unknown flag", line: "keyword\tjwt\t--since 2d\tx", wantErr: "flags"},
		{name: "bad scope", line: "keyword\tjwt\t--scope world\tx", wantErr: "scope"},
		{name: "stray word", line: "keyword\tjwt\t--require a b\tx", wantErr: "unexpected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			qs, err := ParseQueries(strings.NewReader("# comment\n\n"+tt.line+"\n"), "q.tsv")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "q.tsv:3") {
					t.Fatalf("error %v, want one at q.tsv:3 mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(qs) != 1 {
				t.Fatalf("got %v, %v", qs, err)
			}
			tt.want.Line = 3
			if got := qs[0]; !equalQuery(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func equalQuery(a, b Query) bool {
	return a.Line == b.Line && a.Kind == b.Kind && a.Text == b.Text && a.Flags == b.Flags && a.Topic == b.Topic &&
		slices.Equal(a.Require, b.Require) && slices.Equal(a.Exclude, b.Exclude) &&
		slices.Equal(a.Projects, b.Projects) && a.Scope == b.Scope && a.Cwd == b.Cwd
}

func TestCheckQueriesWantsCwdForTwins(t *testing.T) {
	topics := []Topic{{ID: "a"}, {ID: "b", Twin: "/src/other"}}
	tests := []struct {
		name  string
		query Query
		ok    bool
	}{
		{"plain topic", Query{Topic: "a"}, true},
		{"unknown topic", Query{Topic: "zz"}, false},
		{"twin without cwd", Query{Topic: "b"}, false},
		{"twin with cwd", Query{Topic: "b", Cwd: "/src/b"}, true},
		{"twin with project", Query{Topic: "b", Projects: []string{"b"}}, true},
	}
	for _, tt := range tests {
		if err := CheckQueries([]Query{tt.query}, topics); (err == nil) != tt.ok {
			t.Errorf("%s: error %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}

func TestMetrics(t *testing.T) {
	outcomes := []Outcome{
		{Query: Query{Kind: KindKeyword}, Rank: 1},
		{Query: Query{Kind: KindKeyword}, Rank: 4},
		{Query: Query{Kind: KindQuestion}, Rank: 0},
		{Query: Query{Kind: KindQuestion}, Rank: 6},
	}
	rep := &Report{Outcomes: outcomes}
	tests := []struct {
		kind string
		want Metrics
	}{
		// MRR: (1 + 1/4 + 0 + 1/6) / 4.
		{"", Metrics{Queries: 4, Hit1: 0.25, Hit5: 0.5, MRR: (1 + 0.25 + 1.0/6) / 4}},
		{KindKeyword, Metrics{Queries: 2, Hit1: 0.5, Hit5: 1, MRR: 1.25 / 2}},
		{KindQuestion, Metrics{Queries: 2, Hit1: 0, Hit5: 0, MRR: 1.0 / 12}},
	}
	for _, tt := range tests {
		if got := rep.Metrics(tt.kind); got != tt.want {
			t.Errorf("Metrics(%q) = %+v, want %+v", tt.kind, got, tt.want)
		}
	}
}

func TestLineDiff(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"changed line", "a\nb\nc", "a\nB\nc", "-b\n+B\n"},
		{"added", "a\nc", "a\nb\nc", "+b\n"},
		{"removed", "a\nb\nc", "a\nc", "-b\n"},
	}
	for _, tt := range tests {
		if got := LineDiff(tt.old, tt.new); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestSessionMarshal(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	s := Session{ID: "s1", Cwd: "/home/dev/src/shop", Turns: []Turn{
		{At: at, Kind: User, Text: "How should we <b>cache</b> prices?"},
		{At: at, Kind: ToolUse, Tool: "Bash", Input: map[string]string{"command": "go test ./..."}},
		{At: at, Kind: ToolResult, Text: "ok"},
		{At: at, Kind: Assistant, Text: "Cache them per region."},
	}}
	data, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 4 || !strings.HasSuffix(string(data), "\n") {
		t.Fatalf("want 4 newline-terminated lines, got %q", data)
	}
	uuids := map[string]bool{}
	for i, l := range lines {
		var rec struct {
			Type, UUID, SessionID, Timestamp, Cwd string
			ParentUUID                            *string `json:"parentUuid"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if rec.SessionID != "s1" || rec.Cwd != s.Cwd || rec.Timestamp != "2026-03-01T10:00:00.000Z" || uuids[rec.UUID] {
			t.Errorf("line %d: bad record %s", i+1, l)
		}
		if (i == 0) != (rec.ParentUUID == nil) {
			t.Errorf("line %d: parentUuid %v", i+1, rec.ParentUUID)
		}
		uuids[rec.UUID] = true
	}
	if !strings.Contains(lines[0], "<b>cache</b>") {
		t.Errorf("HTML escaped, Claude Code writes it raw: %s", lines[0])
	}
	if !strings.Contains(lines[2], `"tool_use_id":"toolu_`) || !strings.Contains(lines[1], `"type":"tool_use"`) {
		t.Errorf("tool call and result not linked:\n%s\n%s", lines[1], lines[2])
	}
	orphan := Session{ID: "s2", Turns: []Turn{{At: at, Kind: ToolResult, Text: "ok"}}}
	if _, err := orphan.Marshal(); err == nil {
		t.Error("a tool result without a call was accepted")
	}
}

func TestProjectSlug(t *testing.T) {
	tests := map[string]string{
		"/home/dev/src/shop":     "-home-dev-src-shop",
		"/home/dev/src/k8s.op_x": "-home-dev-src-k8s-op-x",
	}
	for in, want := range tests {
		if got := ProjectSlug(in); got != want {
			t.Errorf("ProjectSlug(%q) = %q, want %q", in, got, want)
		}
	}
}
