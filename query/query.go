// Package query is recall's query language: parsing what a person typed
// (terms, phrases, --require, --exclude, --regex, dates) and matching it
// against message text, with the word forms and token shapes the term
// index is looked up by.
package query

// The query language.
//
//	recall [--regex] [--case-sensitive] [--word] [-r TERMS]... [-x TERMS]... TERM...
//
//	query    = any require exclude
//	any      = the positional arguments' terms, OR'ed
//	require  = the terms of every --require/-r value, all of which must match
//	exclude  = the terms of every --exclude/-x value, none of which may match
//	argument = { space | word | phrase }    (one value may hold several terms)
//	phrase   = '"' { character other than '"' } '"'
//	word     = character other than space and '"' { same }
//	space    = a Unicode white-space character
//
// Matching is a case-insensitive substring search, as `rg -i` does it
// (Unicode simple case folding: "ÉCOLE" matches "école", "STRASSE" does
// not match "Straße"). --case-sensitive compares exactly; --word keeps
// only matches whose neighbours are not letters, digits or '_' (grep -w).
// Both apply to every kind of term.
//
// Words. `_` in a word stands for any one character, so reset_windows
// matches "reset windows", "reset-windows" and "reset_windows". A word
// made only of underscores has no literal character to find and is taken
// literally. Positional words are cleaned for natural-language questions
// ("how did we implement jwt auth?"): leading and trailing punctuation
// (?!,.;:()[]{}"'`“”‘’) is stripped — a single leading dot before a letter
// or digit is kept for names like .env — words left empty are dropped,
// and stop words (stopWords) are dropped as long as another positional
// term remains. Words given to --require and --exclude are used as typed.
//
// Short words. A positional word of one or two letters or digits
// (IsShortWord: "id", "go", "ui", "42") matches only as a word of its
// own or a part of one between underscores ("the id", "user_id"), never
// inside a longer word ("Guide", "ago", "10"): that many letters occur
// inside other words by chance.
//
// Phrases. A double-quoted group is one term, spaces included and `_`
// literal (a phrase is how to search for an underscore or for
// punctuation). Its case is folded like a word's. An empty or all-space
// phrase is dropped. Quotes pair from the left within one argument; when
// an argument holds an odd number, its last quote pairs with nothing and
// is a plain character of the word it is in (`the 3" cube` searches for
// 3", cleaned to 3 as a positional word; `why did the "load pattern fly`
// for load, pattern and fly). No text typed as a query is an error: only
// a --regex pattern can be. (Shells remove quotes: write '"jwt auth"'.)
//
// Possessives. A positional word ending in 's (or ’s) that is not a stop
// word is searched without it: "caroline's identity" looks for caroline
// and identity.
//
// Channels. A positional plain word also matches its accent-folded and
// English word forms (forms.go): cestiny finds "češtiny", translated finds
// "Translate". Ranking weighs those hits less than exact ones; --regex,
// --case-sensitive and --word turn the channels off, and --require and
// --exclude words never have them.
//
// Time. Words that name a time relative to now ("last week",
// "yesterday", "3 days ago") or a calendar date ("March 3", "2026-03-03",
// "in July 2025"; when.go) set Query.When, which ranking uses to prefer
// sessions from then. Relative times stay search words; a date is one
// only when the query holds nothing else (withoutDate).
//
// Regexes. With --regex each whitespace-separated word is an RE2 pattern
// (quotes are not special: write \s or \x20 for a space); nothing is
// stripped or dropped.
//
// Every error starts with "query:". A query needs at least one positional
// or required term (--exclude alone is an error, not "everything but").
// Of more than maxPositiveTerms distinct positional and required terms,
// the positional ones past the limit are dropped (Query.Dropped says how
// many); only more required terms than that is an error.
//
// Size. Before any term is compiled, the positional text is read up to
// MaxQueryWords words and MaxQueryBytes bytes: the words past either are
// left out (Query.Unread), as the distinct terms past maxPositiveTerms
// are, never an error, so a pasted log searches its opening. The
// --require values together, and the --exclude values together, may hold
// at most MaxFilterWords words and MaxFilterBytes bytes: more is an error
// that names the cap, since leaving a required or excluded word out would
// show sessions the query rules out. A query's cost is therefore linear
// in its length and bounded whatever its length.

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recall-dev/recall/query/when"

	"github.com/recall-dev/recall/textrules"
)

// MatchOptions are the matching flags, applied to every term of a query.
type MatchOptions struct {
	Regex         bool // each word is an RE2 pattern
	CaseSensitive bool // no case folding
	Word          bool // whole words only, as grep -w
}

// maxPositiveTerms caps the distinct positional and required terms, so
// that TermHits can report them as bits of a uint64.
const maxPositiveTerms = 64

// The caps on a query's size (see "Size" above): generous for a person,
// who types a few words or pastes a paragraph, and small enough that no
// query costs more than a few milliseconds to parse.
const (
	MaxQueryWords  = 256      // positional words read; the rest are left out
	MaxQueryBytes  = 64 << 10 // positional bytes read; the rest are left out
	MaxFilterWords = 256      // words of the --require values, and of the --exclude values
	MaxFilterBytes = 64 << 10 // bytes of the --require values, and of the --exclude values
)

// Query is a parsed search: Any terms OR'ed, every Require term, no
// Exclude term. Build it with ParseQuery.
type Query struct {
	Any     []*Term // positional terms, OR'ed (empty when only --require is given)
	Require []*Term
	Exclude []*Term

	// When is the time the positional words name ("last week"), nil for
	// none.
	When *when.Window
	// Dropped counts positional terms left out past maxPositiveTerms.
	Dropped int
	// Unread counts the positional words past MaxQueryWords or
	// MaxQueryBytes, left out unread.
	Unread int

	opt      MatchOptions
	positive []*Term // Any then Require, deduplicated
	anyMask  uint64  // bits of positive that are Any terms
	reqMask  uint64  // bits of positive that are Require terms
}

// token is one term as read from an argument, before compiling.
type token struct {
	text   string
	phrase bool
}

// ParseQuery parses the positional arguments and the --require and
// --exclude values into a Query.
func ParseQuery(positional, require, exclude []string, opt MatchOptions) (*Query, error) {
	anyTokens, unread := tokenizeCapped(positional, opt)
	requireTokens, err := tokenizeFilter(require, opt, "--require")
	if err != nil {
		return nil, err
	}
	excludeTokens, err := tokenizeFilter(exclude, opt, "--exclude")
	if err != nil {
		return nil, err
	}
	q := &Query{opt: opt, Unread: unread}
	if !opt.Regex {
		var at, n int
		q.When, at, n = when.Find(timeWords(anyTokens))
		anyTokens = dropStopWords(stripPunctuation(withoutDate(anyTokens, q.When, at, n)))
	}
	if q.Any, err = compileTokens(anyTokens, opt, channelsFor(opt)); err != nil {
		return nil, withSpaceHint(err, opt, positional, require, exclude)
	}
	if q.Require, err = compileTokens(requireTokens, opt, false); err != nil {
		return nil, withSpaceHint(err, opt, positional, require, exclude)
	}
	if q.Exclude, err = compileTokens(excludeTokens, opt, false); err != nil {
		return nil, withSpaceHint(err, opt, positional, require, exclude)
	}
	if q.Any, err = withoutChannelsIfRequired(q.Any, q.Require, opt); err != nil {
		return nil, err
	}
	if len(q.Any)+len(q.Require) == 0 {
		if len(q.Exclude) > 0 {
			return nil, fmt.Errorf("query: nothing to search for: --exclude needs a search term or --require")
		}
		return nil, fmt.Errorf("query: empty query: give at least one search term")
	}
	if len(q.Require) > maxPositiveTerms {
		return nil, fmt.Errorf("query: too many required terms: %d distinct, at most %d", len(q.Require), maxPositiveTerms)
	}
	q.Any, q.Dropped = keepFirstTerms(q.Any, q.Require)
	q.positive = dedupTerms(slices.Concat(q.Any, q.Require))
	q.anyMask, q.reqMask = termMask(q.positive, q.Any), termMask(q.positive, q.Require)
	return q, nil
}

// keepFirstTerms keeps the first positional terms that fit, with the
// required ones, in maxPositiveTerms distinct terms, and counts those
// left out: the required ones must all be searched, and a pasted
// paragraph still searches its opening. A positional term that is also
// required takes no place of its own. It is linear in the terms.
func keepFirstTerms(anyTerms, require []*Term) ([]*Term, int) {
	taken := make(map[string]bool, maxPositiveTerms)
	for _, t := range require {
		taken[t.key] = true
	}
	kept, dropped := anyTerms[:0:0], 0
	for _, t := range anyTerms {
		switch {
		case taken[t.key]:
		case len(taken) < maxPositiveTerms:
			taken[t.key] = true
		default:
			dropped++
			continue
		}
		kept = append(kept, t)
	}
	return kept, dropped
}

// LeftOut is the warning a search gives when some positional words were
// not searched (Dropped, Unread), naming the caps; "" when all were.
func (q *Query) LeftOut() string {
	n := q.Dropped + q.Unread
	if n == 0 {
		return ""
	}
	if q.Unread == 0 {
		return fmt.Sprintf("the query has more distinct words than recall searches at once (%d); the last %d were left out", maxPositiveTerms, n)
	}
	return fmt.Sprintf("the query is longer than recall reads (%d words or %d KiB, of which it searches %d distinct words); its first %d words were searched, the last %d left out",
		MaxQueryWords, MaxQueryBytes>>10, maxPositiveTerms, len(q.Any), n)
}

// withSpaceHint adds to the error of a --regex query whose arguments hold
// white space why a pattern may have been cut there: `race[ ]condition`
// reads as the patterns `race[` and `]condition`.
func withSpaceHint(err error, opt MatchOptions, args ...[]string) error {
	if !opt.Regex {
		return err
	}
	for _, list := range args {
		for _, arg := range list {
			if strings.IndexFunc(arg, unicode.IsSpace) >= 0 {
				return fmt.Errorf(`%w (with --regex each space-separated word is a pattern of its own: write a space inside one as \x20 or \s)`, err)
			}
		}
	}
	return err
}

// tokenizeCapped splits the positional arguments into tokens, reading
// at most MaxQueryWords tokens of their first MaxQueryBytes bytes, and
// counts the words left unread. With --regex only whitespace separates
// tokens.
func tokenizeCapped(args []string, opt MatchOptions) (tokens []token, unread int) {
	budget := MaxQueryBytes
	for _, arg := range args {
		if len(tokens) >= MaxQueryWords {
			unread += countWords(arg)
			continue
		}
		read := arg
		if len(read) > budget {
			read = cutAt(read, budget)
			unread += countWords(arg[len(read):])
		}
		budget -= len(read)
		tokens = appendTokens(tokens, read, !opt.Regex)
	}
	if len(tokens) > MaxQueryWords {
		unread += len(tokens) - MaxQueryWords
		tokens = tokens[:MaxQueryWords]
	}
	return tokens, unread
}

// cutAt cuts s to at most n bytes: after the last white space within
// them, so that no word is searched cut short, else (one long word) at a
// character boundary.
func cutAt(s string, n int) string {
	head := s[:n]
	if i := strings.LastIndexFunc(head, unicode.IsSpace); i >= 0 {
		return head[:i]
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// countWords counts the white-space separated words of s, without
// allocating.
func countWords(s string) int {
	n, in := 0, false
	for _, r := range s {
		space := unicode.IsSpace(r)
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}

// tokenizeFilter splits the values of --require or --exclude (flag) into
// tokens, refusing more than MaxFilterWords words or MaxFilterBytes bytes
// before reading them.
func tokenizeFilter(args []string, opt MatchOptions, flag string) ([]token, error) {
	size := 0
	for _, arg := range args {
		size += len(arg)
	}
	if size > MaxFilterBytes {
		return nil, fmt.Errorf("query: %s: %d bytes of words, at most %d (%d KiB)", flag, size, MaxFilterBytes, MaxFilterBytes>>10)
	}
	var tokens []token
	for _, arg := range args {
		tokens = appendTokens(tokens, arg, !opt.Regex)
	}
	if len(tokens) > MaxFilterWords {
		return nil, fmt.Errorf("query: %s: %d words, at most %d", flag, len(tokens), MaxFilterWords)
	}
	return tokens, nil
}

// appendTokens appends the words and (when quotes is set) phrases of arg.
// Quotes pair from the left; the last of an odd number is a plain
// character.
func appendTokens(tokens []token, arg string, quotes bool) []token {
	stray := -1
	if quotes && strings.Count(arg, `"`)%2 == 1 {
		stray = strings.LastIndexByte(arg, '"')
	}
	opens := func(i int) bool { return quotes && arg[i] == '"' && i != stray }
	for i := 0; i < len(arg); {
		r, w := utf8.DecodeRuneInString(arg[i:])
		switch {
		case unicode.IsSpace(r):
			i += w
		case opens(i):
			n := strings.IndexByte(arg[i+1:], '"') // pairs: there is one
			if phrase := arg[i+1 : i+1+n]; strings.TrimSpace(phrase) != "" {
				tokens = append(tokens, token{text: phrase, phrase: true})
			}
			i += n + 2
		default:
			end := wordEnd(arg, i, opens)
			tokens = append(tokens, token{text: arg[i:end]})
			i = end
		}
	}
	return tokens
}

// wordEnd returns where the word starting at i ends: at a space, at a
// quote that opens a phrase, or at the end of arg.
func wordEnd(arg string, i int, opens func(int) bool) int {
	for i < len(arg) {
		r, w := utf8.DecodeRuneInString(arg[i:])
		if unicode.IsSpace(r) || opens(i) {
			break
		}
		i += w
	}
	return i
}

// isStrippedPunct reports whether r is punctuation that a question puts
// around words: sentence marks, brackets, quotes and backticks.
func isStrippedPunct(r rune) bool {
	return strings.ContainsRune("?!,.;:()[]{}\"'`“”‘’", r)
}

// stripPunctuation trims punctuation off the ends of the words (not the
// phrases), drops the words it empties and searches possessives without
// their 's. A query made only of punctuation is kept as typed.
func stripPunctuation(tokens []token) []token {
	kept := tokens[:0:0]
	for _, t := range tokens {
		if !t.phrase {
			t.text = trimWordPunct(t.text)
			if t.text == "" {
				continue
			}
			if !textrules.IsStopWord(t.text) {
				t.text = trimPossessive(t.text)
			}
		}
		kept = append(kept, t)
	}
	if len(kept) == 0 {
		return tokens
	}
	return kept
}

// trimPossessive drops a final 's or ’s from a word of at least two
// letters before it: "caroline's" is searched as caroline.
func trimPossessive(w string) string {
	for _, suffix := range []string{"'s", "'S", "’s", "’S"} {
		if stem, ok := strings.CutSuffix(w, suffix); ok && utf8.RuneCountInString(stem) >= 2 {
			return trimWordPunct(stem)
		}
	}
	return w
}

// timeWords are the words of tokens as a time phrase is read from them:
// lower case, without punctuation, and "" for a quoted phrase.
func timeWords(tokens []token) []string {
	words := make([]string, len(tokens))
	for i, t := range tokens {
		if !t.phrase {
			words[i] = strings.ToLower(trimWordPunct(t.text))
		}
	}
	return words
}

// trimWordPunct trims leading and trailing punctuation off w, keeping a
// single leading dot before a letter or digit (".env", ".gitignore") but
// not an ellipsis ("...and").
func trimWordPunct(w string) string {
	rest := strings.TrimLeftFunc(w, isStrippedPunct)
	trimmed := strings.TrimRightFunc(rest, isStrippedPunct)
	if cut := len(w) - len(rest); trimmed != "" && keepsLeadingDot(w[:cut], trimmed) {
		return "." + trimmed
	}
	return trimmed
}

// keepsLeadingDot reports whether the stripped prefix ends in a lone dot
// that starts a name: "(.env" yes, "...and" and "." before "-x" no.
func keepsLeadingDot(prefix, trimmed string) bool {
	if !strings.HasSuffix(prefix, ".") || strings.HasSuffix(prefix, "..") {
		return false
	}
	r, _ := utf8.DecodeRuneInString(trimmed)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// dropStopWords removes stop words from the positional tokens when some
// other token remains; a question made only of stop words is kept whole.
func dropStopWords(tokens []token) []token {
	kept := tokens[:0:0]
	for _, t := range tokens {
		if t.phrase || !textrules.IsStopWord(t.text) {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		return tokens
	}
	return kept
}

// withoutDate leaves out the n tokens from at when they name a calendar
// date ("on 1 May, 2022", "in July"): ranking prefers sessions from then,
// and as words they would match talk of other dates and other words
// ("May" is a word of "maybe"). Relative times ("last week", "two years
// ago") stay search words: people write them in messages about what
// came before, so they find the passage that tells of it. When nothing
// but stop words would be left, the tokens stay: a query that is only a
// date searches for it as text too.
func withoutDate(tokens []token, w *when.Window, at, n int) []token {
	if w == nil || w.Date.Month == 0 || n == 0 {
		return tokens
	}
	rest := make([]token, 0, len(tokens)-n)
	rest = append(append(rest, tokens[:at]...), tokens[at+n:]...)
	for _, t := range stripPunctuation(rest) {
		if t.phrase || !textrules.IsStopWord(t.text) {
			return rest
		}
	}
	return tokens
}

// compileTokens compiles tokens into terms, dropping duplicates; plain
// words get the accent and word-form channels when withForms is set.
func compileTokens(tokens []token, opt MatchOptions, withForms bool) ([]*Term, error) {
	terms := make([]*Term, 0, len(tokens))
	for _, tok := range tokens {
		kind := wordTerm
		switch {
		case opt.Regex:
			kind = regexTerm
		case tok.phrase:
			kind = phraseTerm
		}
		t, err := compileTermWith(tok.text, kind, opt, withForms)
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
	return dedupTerms(terms), nil
}

// withoutChannelsIfRequired gives a positional word that is also
// required its exact form, so the two are one term: every message that
// counts must hold it exactly anyway.
func withoutChannelsIfRequired(anyTerms, require []*Term, opt MatchOptions) ([]*Term, error) {
	for i, t := range anyTerms {
		exactKey := strings.TrimPrefix(t.key, "f")
		if t.forms == nil || !slices.ContainsFunc(require, func(r *Term) bool { return r.key == exactKey }) {
			continue
		}
		exact, err := compileTermWith(t.display, wordTerm, opt, false) // a word's display is its text
		if err != nil {
			return nil, err
		}
		anyTerms[i] = exact
	}
	return dedupTerms(anyTerms), nil
}

// channelsFor reports whether positional words get the accent and
// word-form channels: not when the user asked for exact matching.
func channelsFor(opt MatchOptions) bool {
	return !opt.Regex && !opt.CaseSensitive && !opt.Word
}

// dedupTerms keeps the first of terms that match the same texts.
func dedupTerms(terms []*Term) []*Term {
	seen := make(map[string]bool, len(terms))
	kept := terms[:0:0]
	for _, t := range terms {
		if !seen[t.key] {
			seen[t.key] = true
			kept = append(kept, t)
		}
	}
	return kept
}

// termMask sets bit i for each positive[i] that has the key of one of
// group.
func termMask(positive, group []*Term) uint64 {
	var mask uint64
	for i, p := range positive {
		if slices.ContainsFunc(group, func(t *Term) bool { return t.key == p.key }) {
			mask |= 1 << i
		}
	}
	return mask
}

// Positive returns the Any terms then the Require terms, without
// duplicates: the terms that ranking scores, in TermHits' bit order.
func (q *Query) Positive() []*Term { return slices.Clone(q.positive) }

// MatchMessage reports whether one message satisfies the query: at least
// one Any term (when there are any), every Require term and no Exclude
// term.
func (q *Query) MatchMessage(text []byte) bool {
	if len(q.Any) > 0 && !slices.ContainsFunc(q.Any, func(t *Term) bool { return t.Match(text) }) {
		return false
	}
	for _, t := range q.Require {
		if !t.Match(text) {
			return false
		}
	}
	for _, t := range q.Exclude {
		if t.Match(text) {
			return false
		}
	}
	return true
}

// TermHits evaluates every term on text, for scopes wider than one
// message (a session matches when its messages together satisfy the
// query): bit i of positive is set when Positive()[i] matches, and
// excluded is true when any Exclude term does.
func (q *Query) TermHits(text []byte) (positive uint64, excluded bool) {
	for i, t := range q.positive {
		if t.Match(text) {
			positive |= 1 << i
		}
	}
	excluded = slices.ContainsFunc(q.Exclude, func(t *Term) bool { return t.Match(text) })
	return positive, excluded
}

// Satisfied reports whether the positive hits of TermHits, OR'ed over a
// scope, meet the query: some Any term (when there are any) and every
// Require term. Exclusion is the caller's to apply.
func (q *Query) Satisfied(positive uint64) bool {
	return (q.anyMask == 0 || positive&q.anyMask != 0) && positive&q.reqMask == q.reqMask
}

// String is the query in a printable form for --explain, such as
// `(or jwt auth) (and implement) (not test)`, followed by the options
// that are set: `[regex case-sensitive word]`.
func (q *Query) String() string {
	var parts []string
	for _, g := range []struct {
		op    string
		terms []*Term
	}{{"or", q.Any}, {"and", q.Require}, {"not", q.Exclude}} {
		if len(g.terms) == 0 {
			continue
		}
		words := []string{g.op}
		for _, t := range g.terms {
			words = append(words, t.String())
		}
		parts = append(parts, "("+strings.Join(words, " ")+")")
	}
	if q.When != nil {
		parts = append(parts, "(when "+q.When.Phrase+")")
	}
	if flags := q.opt.flagNames(); len(flags) > 0 {
		parts = append(parts, "["+strings.Join(flags, " ")+"]")
	}
	if n := q.Dropped + q.Unread; n > 0 {
		parts = append(parts, fmt.Sprintf("[%d more words not searched]", n))
	}
	return strings.Join(parts, " ")
}

// flagNames lists the options that are set, by their flag names.
func (o MatchOptions) flagNames() []string {
	var names []string
	if o.Regex {
		names = append(names, "regex")
	}
	if o.CaseSensitive {
		names = append(names, "case-sensitive")
	}
	if o.Word {
		names = append(names, "word")
	}
	return names
}
