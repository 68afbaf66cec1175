// Package redact replaces secrets in text with typed placeholders such as
// [REDACTED:aws-access-token], so that a key typed or echoed into a
// conversation never reaches recall's index.
//
// The rules are gitleaks' default rules (package gitleaks, generated from
// the gitleaks module by gen; see droppedGitleaksRule for the one left out
// and why) and a few of recall's own for what gitleaks leaves to its
// generic rule: passwords and secrets assigned to a name, passwords in
// connection strings, AWS secret keys, bearer tokens and private key
// blocks that were cut short (curated.go). recall runs them itself rather
// than through gitleaks' detector, which is too slow for the indexer
// (docs/benchmarks.md, "Redaction cost"): one Aho-Corasick pass finds
// every rule's keywords, and a rule's expression runs only where they
// occur.
package redact

import (
	"slices"
	"strings"
	"sync"

	"github.com/recall-dev/recall/redact/gitleaks"
	"github.com/recall-dev/recall/redact/resyntax"

	"github.com/recall-dev/recall/redact/keywords"
)

// Redactor finds and replaces secrets. It is safe for concurrent use.
type Redactor struct {
	rules   []*rule
	pre     *keywords.Scanner
	targets [][]target // by keyword id: the rules the keyword starts
	global  func() []allowlist
	scratch sync.Pool // *scratch
}

type target struct {
	rule  int32
	guard func(text string, start, end int) bool // nil: always run
}

// scratch is one call's working memory, reused across calls.
type scratch struct {
	hits   []keywords.Hit
	lanes  [keywords.Lanes][]keywords.Hit
	mark   []int // by anchored rule: the last start it ran at, plus one
	whole  []ruleOccurrence
	occ    []resyntax.Occurrence
	ranges [][2]int
	spans  []span
}

// ruleOccurrence is a keyword occurrence that starts a whole rule.
type ruleOccurrence struct {
	rule int32
	resyntax.Occurrence
}

// Finding is one secret in a text: text[Start:End], of type Kind.
type Finding struct {
	Start, End int
	Kind       string
}

// Placeholder is what a secret of the given kind is replaced with.
func Placeholder(kind string) string { return "[REDACTED:" + kind + "]" }

// placeholderPrefix starts every placeholder; text that already holds one
// is not redacted again, so redacting twice changes nothing.
const placeholderPrefix = "[REDACTED:"

// Default returns the process's redactor, built on first use. Building
// one costs about a millisecond (the prefilter); its expressions compile
// as rules first run.
func Default() *Redactor { return defaultRedactor() }

var defaultRedactor = sync.OnceValue(New)

// New builds a redactor with every rule.
func New() *Redactor { return newRedactor(true) }

// newRedactor builds a redactor with every rule, with the rules'
// prechecks (precheck.go) or, for the tests that compare the two, without.
func newRedactor(prechecks bool) *Redactor {
	r := &Redactor{
		rules:  append(gitleaksRuleSet(), curatedRuleSet()...),
		global: sync.OnceValue(func() []allowlist { return compileAllowlists(gitleaks.GlobalAllowlists) }),
	}
	for _, ru := range r.rules {
		if ru.kind == "encoded-secret" {
			ru.find = r.findEncoded
		}
	}
	ids := map[string]int32{}
	var kws []string
	for i, ru := range r.rules {
		if prechecks && ru.find == nil {
			ru.precheck = anchoredPrecheck(ru.kind)
			if !ru.anchored {
				ru.textPrecheck = wholePrecheck(ru.kind)
			}
		}
		ru.init()
		for _, k := range ru.keywords {
			k = strings.ToLower(k)
			id, ok := ids[k]
			if !ok {
				id = int32(len(kws))
				ids[k] = id
				kws = append(kws, k)
				r.targets = append(r.targets, nil)
			}
			t := target{rule: int32(i)}
			if !ru.anchored {
				t.guard = gitleaksGuard(ru.kind, k)
				ru.guarded = ru.guarded || t.guard != nil
			}
			r.targets[id] = append(r.targets[id], t)
		}
	}
	r.pre = keywords.New(kws)
	return r
}

// String returns text with every secret replaced by its placeholder; text
// itself (no copy) when it holds none.
func (r *Redactor) String(text string) string {
	s := r.getScratch()
	defer r.scratch.Put(s)
	spans := r.find(text, s)
	if len(spans) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	at := 0
	for _, sp := range spans {
		b.WriteString(text[at:sp.lo])
		b.WriteString(placeholderPrefix)
		b.WriteString(sp.rule.kind)
		b.WriteByte(']')
		at = sp.hi
	}
	b.WriteString(text[at:])
	return b.String()
}

// Find lists the secrets in text, in order, overlapping findings merged.
func (r *Redactor) Find(text string) []Finding {
	s := r.getScratch()
	defer r.scratch.Put(s)
	var out []Finding
	for _, sp := range r.find(text, s) {
		out = append(out, Finding{Start: sp.lo, End: sp.hi, Kind: sp.rule.kind})
	}
	return out
}

func (r *Redactor) getScratch() *scratch {
	if s, ok := r.scratch.Get().(*scratch); ok {
		return s
	}
	return &scratch{mark: make([]int, len(r.rules))}
}

// find returns the merged spans of every secret in text, in s.spans.
func (r *Redactor) find(text string, s *scratch) []span {
	s.hits = r.pre.Scan(text, s.hits[:0], &s.lanes)
	s.spans = s.spans[:0]
	if len(s.hits) == 0 {
		return nil
	}
	clear(s.mark)
	s.whole = s.whole[:0]
	global := r.global()
	redactedBefore := strings.Contains(text, placeholderPrefix)
	for _, h := range s.hits {
		start := r.pre.Start(h)
		if redactedBefore && inPlaceholder(text, start) {
			continue // "password" of [REDACTED:url-password] tells of no secret
		}
		for _, t := range r.targets[h.Keyword] {
			ru := r.rules[t.rule]
			if t.guard != nil && !t.guard(text, start, h.End) {
				continue
			}
			if !ru.anchored {
				s.whole = append(s.whole, ruleOccurrence{t.rule, resyntax.Occurrence{Start: start, End: h.End}})
				continue
			}
			if s.mark[t.rule] == start+1 {
				continue // another keyword of the rule at the same place
			}
			s.mark[t.rule] = start + 1
			s.spans = ru.findAt(text, start, global, s.spans)
		}
	}
	// By rule, each rule's occurrences still in order of their ends.
	slices.SortStableFunc(s.whole, func(a, b ruleOccurrence) int { return int(a.rule) - int(b.rule) })
	for i := 0; i < len(s.whole); {
		j := i
		s.occ = s.occ[:0]
		for ; j < len(s.whole) && s.whole[j].rule == s.whole[i].rule; j++ {
			s.occ = append(s.occ, s.whole[j].Occurrence)
		}
		s.spans, s.ranges = r.rules[s.whole[i].rule].findAll(text, s.occ, global, s.spans, s.ranges)
		i = j
	}
	s.spans = merge(text, s.spans)
	return s.spans
}

// inPlaceholder reports whether text[i] lies inside a placeholder: after
// a "[REDACTED:" with no "]" since. A keyword there is a kind's name,
// never a secret's context; a rule that read it as one would redact the
// text after a placeholder on a second pass (FuzzRedact).
func inPlaceholder(text string, i int) bool {
	from := max(i-maxPlaceholderReach, 0)
	open := strings.LastIndex(text[from:i], placeholderPrefix)
	if open < 0 {
		return false
	}
	return !strings.Contains(text[from+open:i], "]")
}

// maxPlaceholderReach is how far back a placeholder's start can be from a
// keyword inside it: the prefix and the longest kind name, with room.
const maxPlaceholderReach = len(placeholderPrefix) + 64

// merge sorts spans and joins the ones that overlap; the joined span takes
// the kind of its highest-priority rule (of equal ones, the first by
// name, so the choice does not depend on the order rules ran in). A span
// holding or touching a placeholder is dropped: that text was redacted
// before.
func merge(text string, spans []span) []span {
	if len(spans) == 0 {
		return spans
	}
	slices.SortFunc(spans, func(a, b span) int {
		if a.lo != b.lo {
			return a.lo - b.lo
		}
		return b.hi - a.hi
	})
	out := spans[:0]
	for _, sp := range spans {
		if strings.Contains(text[sp.lo:sp.hi], placeholderPrefix) || strings.HasPrefix(text[sp.hi:], placeholderPrefix) ||
			strings.HasSuffix(text[:sp.lo], "]") && inPlaceholder(text, sp.lo-1) || inPlaceholder(text, sp.lo) {
			// It holds a placeholder, touches one or starts inside one
			// (a field split at the kind's colon): what is left of a
			// value redacted before, which the placeholder's bracket now
			// ends as a word of its own.
			continue
		}
		if n := len(out); n > 0 && sp.lo < out[n-1].hi {
			last := &out[n-1]
			last.hi = max(last.hi, sp.hi)
			if sp.rule.priority < last.rule.priority ||
				sp.rule.priority == last.rule.priority && sp.rule.kind < last.rule.kind {
				last.rule = sp.rule
			}
			continue
		}
		out = append(out, sp)
	}
	return out
}
