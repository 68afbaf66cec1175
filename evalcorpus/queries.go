package evalcorpus

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/recall-dev/recall/internal/errpath"
	"github.com/recall-dev/recall/search"
)

// Query kinds: how the query is phrased.
const (
	KindKeyword  = "keyword"  // words as typed into a search box
	KindQuestion = "question" // a natural-language question, used verbatim
)

// Query is one line of queries.tsv.
type Query struct {
	Line  int
	Kind  string // KindKeyword or KindQuestion
	Text  string // the positional words, as one would type them
	Flags string // as written in the file ("" when none)
	Topic string // the topic whose sessions answer it

	Require, Exclude, Projects []string
	Scope                      string // "" or search.Scope value
	// Cwd is the directory the query is asked from: its project is the
	// current project, as when `recall` runs inside it.
	Cwd string
}

// ReadQueries reads a queries.tsv file.
func ReadQueries(path string) ([]Query, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read queries: %w", err)
	}
	defer f.Close()
	return ParseQueries(f, path)
}

// ParseQueries reads queries.tsv: one query per line as four tab-separated
// fields (kind, query, flags, topic); "-" stands for no flags; blank lines
// and lines starting with '#' are skipped.
func ParseQueries(r io.Reader, name string) ([]Query, error) {
	var out []Query
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		q, err := parseQueryLine(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		q.Line = n
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, errpath.Wrap("read", name, err)
	}
	return out, nil
}

func parseQueryLine(text string) (Query, error) {
	fields := strings.Split(text, "\t")
	if len(fields) != 4 {
		return Query{}, fmt.Errorf("want 4 tab-separated fields (kind, query, flags, topic), got %d", len(fields))
	}
	q := Query{Kind: fields[0], Text: strings.TrimSpace(fields[1]), Topic: strings.TrimSpace(fields[3])}
	if q.Kind != KindKeyword && q.Kind != KindQuestion {
		return q, fmt.Errorf("kind %q: want %s or %s", q.Kind, KindKeyword, KindQuestion)
	}
	if q.Text == "" || q.Topic == "" {
		return q, fmt.Errorf("empty query or topic")
	}
	if flags := strings.TrimSpace(fields[2]); flags != "-" {
		q.Flags = flags
	}
	return q, q.parseFlags()
}

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// parseFlags reads the flags column: the search flags of the CLI that
// matter to ranking, plus --cwd. Values hold no spaces.
func (q *Query) parseFlags() error {
	fs := flag.NewFlagSet("flags", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var((*listFlag)(&q.Require), "require", "")
	fs.Var((*listFlag)(&q.Exclude), "exclude", "")
	fs.Var((*listFlag)(&q.Projects), "project", "")
	fs.StringVar(&q.Scope, "scope", "", "")
	fs.StringVar(&q.Cwd, "cwd", "", "")
	if err := fs.Parse(strings.Fields(q.Flags)); err != nil {
		return fmt.Errorf("flags %q: %w", q.Flags, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("flags %q: unexpected %q", q.Flags, fs.Args())
	}
	if q.Scope != "" && q.Scope != string(search.ScopeMessage) && q.Scope != string(search.ScopeSession) {
		return fmt.Errorf("flags %q: scope %q", q.Flags, q.Scope)
	}
	return nil
}

// CheckQueries verifies that every query names a known topic, and that a
// query for a topic with a twin says where it is asked from, since
// otherwise the twin would be as right an answer as the target.
func CheckQueries(queries []Query, topics []Topic) error {
	byID := map[string]Topic{}
	for _, t := range topics {
		byID[t.ID] = t
	}
	for _, q := range queries {
		t, ok := byID[q.Topic]
		if !ok {
			return fmt.Errorf("queries line %d: unknown topic %q", q.Line, q.Topic)
		}
		if t.Twin != "" && q.Cwd == "" && len(q.Projects) == 0 {
			return fmt.Errorf("queries line %d: topic %s was also worked on in %s; give --cwd or --project", q.Line, t.ID, t.Twin)
		}
	}
	return nil
}

// Params is the search the CLI would run for q at now: `recall QUERY
// [flags] --now NOW` asked from q.Cwd, every other setting at the CLI's
// default (search.Params applies the same defaults for both).
func (q *Query) Params(now time.Time) search.Params {
	return search.Params{
		Terms: []string{q.Text}, Require: q.Require, Exclude: q.Exclude,
		Scope: q.Scope, Projects: q.Projects,
		Now: now.Format(time.RFC3339Nano), Cwd: q.Cwd,
	}
}
