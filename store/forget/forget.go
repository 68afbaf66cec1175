// Package forget is what `recall forget` leaves in the index: the
// tombstone (forgotten-v1.tsv), its rules and the filter every run reads
// transcripts and rows through, so that what was forgotten stays so. It
// holds keyed hashes of what a rule names, never the ids, paths or text
// themselves. The store reads and writes the file.
package forget

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/recall-dev/recall/internal/tsvfield"
	"github.com/recall-dev/recall/record"
)

// castagnoli is CRC-32C, the checksum of the file's end line.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const forgottenMagic = "recall-forgotten\tv1"

// Hash is a keyed hash of a session id, project path or transcript path.
type Hash [16]byte

func (h Hash) zero() bool { return h == Hash{} }

// Seal is a transcript a rule keeps out. Offset < 0: never read again;
// otherwise the transcript was read to Offset (Lines lines, ending in
// bytes whose fingerprint is Tail) and every row of those lines was
// forgotten: a run that finds it again reads on from there, or from its
// start if those bytes changed.
type Seal struct {
	Offset int64
	Lines  int
	Tail   record.Fingerprint
}

// Rule is one forget. Zero Session, Project or Before match any.
type Rule struct {
	ID      int
	Created int64 // Unix ns of the forget
	Session Hash
	Project Hash  // the project and the folders inside it
	Before  int64 // Unix ms: rows written before it; 0: any time
	// Lifted: `recall forget --undo` took it back; the next writer reads
	// its transcripts again (Touched) and then drops the rule.
	Lifted  bool
	Seals   map[Hash]Seal
	Touched map[Hash]bool   // transcripts it removed rows of
	Msgs    map[uint64]bool // messages it removed, wherever copied
}

// Whole reports a rule that forgets every row of what it selects (no
// time bound): its transcripts are never read again.
func (r *Rule) Whole() bool { return r.Before == 0 }

// Tombstone is the content of forgottenName.
type Tombstone struct {
	// Serial counts the changes of the rules; the manifest records the
	// one its rows were last made to agree with (ForgetSerial).
	Serial uint64
	key    []byte
	Rules  []*Rule
}

// NewTombstone is an empty tombstone with a new random key.
func NewTombstone() *Tombstone {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		panic(err) // crypto/rand does not fail on the systems recall runs on
	}
	return &Tombstone{key: key}
}

// hash is the keyed hash of value as kind.
func (t *Tombstone) hash(kind, value string) [32]byte {
	b := make([]byte, 0, len(t.key)+len(kind)+1+len(value))
	b = append(append(append(append(b, t.key...), kind...), 0), value...)
	return sha256.Sum256(b)
}

func (t *Tombstone) hash16(kind, value string) Hash {
	s := t.hash(kind, value)
	var h Hash
	copy(h[:], s[:])
	return h
}

// HashSession, HashProject and HashPath hash a session id, a project path
// and a transcript path; HashUUID a message uuid.
func (t *Tombstone) HashSession(id string) Hash { return t.hash16("session", id) }

func (t *Tombstone) HashProject(path string) Hash { return t.hash16("project", cleanProject(path)) }

func (t *Tombstone) HashPath(path string) Hash { return t.hash16("path", path) }

func (t *Tombstone) HashUUID(uuid string) uint64 {
	s := t.hash("uuid", uuid)
	return binary.LittleEndian.Uint64(s[:8]) | 1 // never 0
}

// cleanProject is a project root as matched: without a trailing slash,
// except the root itself.
func cleanProject(path string) string {
	if len(path) > 1 {
		return strings.TrimSuffix(path, "/")
	}
	return path
}

// projectRoots are path and the folders above it, as a project rule can
// name them ("/a/b": "/a/b", "/a", "/"), in the sense of
// filter.InProject.
func projectRoots(path string) []string {
	if path == "" {
		return nil
	}
	out := []string{path}
	for i := len(path) - 1; i > 0; i-- {
		if path[i] == '/' {
			out = append(out, path[:i])
		}
	}
	if strings.HasPrefix(path, "/") && path != "/" {
		out = append(out, "/")
	}
	return out
}

// AddRule adds a rule and returns it (Serial moves on).
func (t *Tombstone) AddRule(r *Rule) *Rule {
	r.ID = 1
	for _, o := range t.Rules {
		r.ID = max(r.ID, o.ID+1)
	}
	if r.Seals == nil {
		r.Seals = map[Hash]Seal{}
	}
	if r.Touched == nil {
		r.Touched = map[Hash]bool{}
	}
	if r.Msgs == nil {
		r.Msgs = map[uint64]bool{}
	}
	t.Rules = append(t.Rules, r)
	t.Serial++
	return r
}

// Lift marks the rules pick accepts as taken back (Serial moves on) and
// returns how many it marked.
func (t *Tombstone) Lift(pick func(*Rule) bool) int {
	n := 0
	for _, r := range t.Rules {
		if !r.Lifted && pick(r) {
			r.Lifted = true
			n++
		}
	}
	if n > 0 {
		t.Serial++
	}
	return n
}

// DropLifted removes the lifted rules, once their undo is applied.
func (t *Tombstone) DropLifted() bool {
	n := len(t.Rules)
	t.Rules = slices.DeleteFunc(t.Rules, func(r *Rule) bool { return r.Lifted })
	return len(t.Rules) != n
}

// Active are the rules in force.
func (t *Tombstone) Active() []*Rule {
	if t == nil {
		return nil
	}
	var out []*Rule
	for _, r := range t.Rules {
		if !r.Lifted {
			out = append(out, r)
		}
	}
	return out
}

// Counts is what `recall stats` says of the tombstone: counts,
// never ids.
type Counts struct {
	Rules       int `json:"rules"`
	Sessions    int `json:"sessions"`     // rules naming a session
	Projects    int `json:"projects"`     // rules naming a project
	TimeRanges  int `json:"time_ranges"`  // rules bounded by a date
	Transcripts int `json:"transcripts"`  // transcripts kept out whole
	Messages    int `json:"messages"`     // messages kept out wherever copied
	Pending     int `json:"pending_undo"` // lifted rules the next run applies
}

// Counts counts the rules in force and what they keep out.
func (t *Tombstone) Counts() Counts {
	var c Counts
	seals, msgs := map[Hash]bool{}, map[uint64]bool{}
	if t == nil {
		return c
	}
	for _, r := range t.Rules {
		if r.Lifted {
			c.Pending++
			continue
		}
		c.Rules++
		if !r.Session.zero() {
			c.Sessions++
		}
		if !r.Project.zero() {
			c.Projects++
		}
		if r.Before != 0 {
			c.TimeRanges++
		}
		for h, s := range r.Seals {
			if s.Offset < 0 {
				seals[h] = true
			}
		}
		for m := range r.Msgs {
			msgs[m] = true
		}
	}
	c.Transcripts, c.Messages = len(seals), len(msgs)
	return c
}

// Filter tests rows and transcripts against the rules in force. It keeps
// the hashes of the ids and paths it has seen, so that a run over many
// rows of few sessions hashes each once; it is not safe for concurrent
// use.
type Filter struct {
	t        *Tombstone
	rules    []*Rule
	msgs     map[uint64]bool
	sessions map[string]Hash
	projects map[string][]Hash
}

// Filter returns the filter of the rules in force, nil when there are
// none (a nil *Filter matches nothing).
func (t *Tombstone) Filter() *Filter {
	rules := t.Active()
	if len(rules) == 0 {
		return nil
	}
	f := &Filter{t: t, rules: rules, sessions: map[string]Hash{}, projects: map[string][]Hash{}}
	for _, r := range rules {
		if len(r.Msgs) > 0 && f.msgs == nil {
			f.msgs = map[uint64]bool{}
		}
		maps.Copy(f.msgs, r.Msgs)
	}
	return f
}

func (f *Filter) session(id string) Hash {
	h, ok := f.sessions[id]
	if !ok {
		h = f.t.HashSession(id)
		f.sessions[id] = h
	}
	return h
}

func (f *Filter) project(path string) []Hash {
	hs, ok := f.projects[path]
	if !ok {
		for _, p := range projectRoots(path) {
			hs = append(hs, f.t.HashProject(p))
		}
		f.projects[path] = hs
	}
	return hs
}

// selects reports whether r selects the session and project (and, for a
// timed rule, leaves the time to the caller).
func (f *Filter) selects(r *Rule, session, project string) bool {
	if !r.Session.zero() && f.session(session) != r.Session {
		return false
	}
	return r.Project.zero() || slices.Contains(f.project(project), r.Project)
}

// MatchRow reports whether a rule in force forgets row: it selects the
// row's session, project and time, or the row is a copy of a message a
// rule forgot.
func (f *Filter) MatchRow(row *record.Row) bool { return f.RuleOf(row) != nil }

// RuleOf returns the rule in force that forgets row, nil for none.
func (f *Filter) RuleOf(row *record.Row) *Rule {
	if f == nil {
		return nil
	}
	if f.msgs != nil && row.UUID != "" {
		if h := f.t.HashUUID(row.UUID); f.msgs[h] {
			for _, r := range f.rules {
				if r.Msgs[h] {
					return r
				}
			}
		}
	}
	for _, r := range f.rules {
		if !f.selects(r, row.Session, row.Project) {
			continue
		}
		if r.Before == 0 {
			return r
		}
		if t, ok := record.ParseTimestamp(row.Timestamp); ok && t < r.Before {
			return r
		}
	}
	return nil
}

// WholeRule returns a rule in force that forgets every row of a
// transcript of this session and project (nil for none). A project not
// known yet ("") is selected only by a rule that names no project.
func (f *Filter) WholeRule(session, project string) *Rule {
	if f == nil {
		return nil
	}
	for _, r := range f.rules {
		if r.Whole() && (project != "" || r.Project.zero()) && (session != "" || r.Session.zero()) && f.selects(r, session, project) {
			return r
		}
	}
	return nil
}

// Sealed returns how a rule in force keeps the transcript at path out,
// and whether one does: never again (Offset < 0) over a resume offset.
func (f *Filter) Sealed(path string) (Seal, bool) {
	s, r := f.SealOf(path)
	return s, r != nil
}

// SealOf returns how a rule in force keeps the transcript at path out,
// and that rule (nil: none does).
func (f *Filter) SealOf(path string) (Seal, *Rule) {
	if f == nil {
		return Seal{}, nil
	}
	h := f.t.HashPath(path)
	var best Seal
	var rule *Rule
	for _, r := range f.rules {
		s, ok := r.Seals[h]
		if !ok {
			continue
		}
		if rule == nil || best.Offset >= 0 && (s.Offset < 0 || s.Offset > best.Offset) {
			best, rule = s, r
		}
	}
	return best, rule
}

// SealPath records that rule keeps path out as s.
func (t *Tombstone) SealPath(rule *Rule, path string, s Seal) {
	rule.Seals[t.HashPath(path)] = s
	rule.Touched[t.HashPath(path)] = true
}

// Touch records that rule removed rows of the transcript at path.
func (t *Tombstone) Touch(rule *Rule, path string) {
	rule.Touched[t.HashPath(path)] = true
}

// Rule returns the rule with that id, nil for none.
func (t *Tombstone) Rule(id int) *Rule {
	for _, r := range t.Rules {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// msgsPerLine bounds a msgs line of the file.
const msgsPerLine = 512

// Encode is the tombstone file's bytes.
func (t *Tombstone) Encode() []byte {
	b := []byte(forgottenMagic + "\n")
	b = fmt.Appendf(b, "serial\t%d\n", t.Serial)
	b = fmt.Appendf(b, "key\t%s\n", hex.EncodeToString(t.key))
	hashField := func(h Hash) string {
		if h.zero() {
			return "-"
		}
		return hex.EncodeToString(h[:])
	}
	for _, r := range t.Rules {
		lifted := 0
		if r.Lifted {
			lifted = 1
		}
		b = fmt.Appendf(b, "rule\t%d\t%d\t%s\t%s\t%d\t%d\n", r.ID, r.Created, hashField(r.Session), hashField(r.Project), r.Before, lifted)
		for _, h := range sortedHashes(r.Seals) {
			s := r.Seals[h]
			b = fmt.Appendf(b, "seal\t%d\t%s\t%d\t%d\t%d\t%d\n", r.ID, hex.EncodeToString(h[:]), s.Offset, s.Lines, s.Tail.CRC, s.Tail.Len)
		}
		for _, h := range sortedHashes(r.Touched) {
			b = fmt.Appendf(b, "touched\t%d\t%s\n", r.ID, hex.EncodeToString(h[:]))
		}
		msgs := slices.Sorted(maps.Keys(r.Msgs))
		for len(msgs) > 0 {
			n := min(len(msgs), msgsPerLine)
			b = fmt.Appendf(b, "msgs\t%d\t", r.ID)
			for _, m := range msgs[:n] {
				b = hex.AppendEncode(b, binary.BigEndian.AppendUint64(nil, m))
			}
			b = append(b, '\n')
			msgs = msgs[n:]
		}
	}
	return fmt.Appendf(b, "end\t%08x\n", crc32.Checksum(b, castagnoli))
}

func sortedHashes[V any](m map[Hash]V) []Hash {
	return slices.SortedFunc(maps.Keys(m), func(a, b Hash) int { return bytes.Compare(a[:], b[:]) })
}

// Parse reads a tombstone file's bytes.
func Parse(data []byte) (*Tombstone, error) {
	end := bytes.LastIndex(data, []byte("\nend\t"))
	if !bytes.HasPrefix(data, []byte(forgottenMagic+"\n")) || end < 0 || !bytes.HasSuffix(data, []byte("\n")) {
		return nil, errors.New("not a tombstone, or cut short")
	}
	if err := tsvfield.CheckLine(bytes.Split(bytes.TrimSuffix(data[end+1:], []byte("\n")), []byte{'\t'}), data[:end+1]); err != nil {
		return nil, err
	}
	t := &Tombstone{}
	for n, line := range bytes.Split(data[len(forgottenMagic)+1:end], []byte{'\n'}) {
		if err := t.parseLine(strings.Split(string(line), "\t")); err != nil {
			return nil, fmt.Errorf("line %d: %w", n+2, err)
		}
	}
	if len(t.key) != 32 {
		return nil, errors.New("no key")
	}
	return t, nil
}

func (t *Tombstone) parseLine(f []string) error {
	num := func(i int) (int64, error) {
		if i >= len(f) {
			return 0, fmt.Errorf("%s: want %d fields", f[0], i+1)
		}
		return strconv.ParseInt(f[i], 10, 64)
	}
	hashAt := func(i int) (Hash, error) {
		var h Hash
		if i >= len(f) {
			return h, fmt.Errorf("%s: want %d fields", f[0], i+1)
		}
		if f[i] == "-" {
			return h, nil
		}
		raw, err := hex.DecodeString(f[i])
		if err != nil || len(raw) != len(h) {
			return h, fmt.Errorf("%s: bad hash %q", f[0], f[i])
		}
		copy(h[:], raw)
		return h, nil
	}
	ruleAt := func(i int) (*Rule, error) {
		id, err := num(i)
		if err != nil {
			return nil, err
		}
		r := t.Rule(int(id))
		if r == nil {
			return nil, fmt.Errorf("%s of rule %d, which is not listed before it", f[0], id)
		}
		return r, nil
	}
	// ruleAndHash reads the rule and the transcript hash a seal or a
	// touched line opens with.
	ruleAndHash := func() (*Rule, Hash, error) {
		r, err := ruleAt(1)
		if err != nil {
			return nil, Hash{}, err
		}
		h, err := hashAt(2)
		return r, h, err
	}
	var err error
	switch f[0] {
	case "serial":
		var v int64
		v, err = num(1)
		t.Serial = uint64(v)
	case "key":
		if len(f) < 2 {
			return errors.New("key: no value")
		}
		t.key, err = hex.DecodeString(f[1])
	case "rule":
		r := &Rule{Seals: map[Hash]Seal{}, Touched: map[Hash]bool{}, Msgs: map[uint64]bool{}}
		var id, lifted int64
		if id, err = num(1); err != nil {
			return err
		}
		r.ID = int(id)
		if r.Created, err = num(2); err != nil {
			return err
		}
		if r.Session, err = hashAt(3); err != nil {
			return err
		}
		if r.Project, err = hashAt(4); err != nil {
			return err
		}
		if r.Before, err = num(5); err != nil {
			return err
		}
		if lifted, err = num(6); err != nil {
			return err
		}
		r.Lifted = lifted == 1
		t.Rules = append(t.Rules, r)
	case "seal":
		r, h, err := ruleAndHash()
		if err != nil {
			return err
		}
		var v [4]int64
		for i := range v {
			if v[i], err = num(3 + i); err != nil {
				return err
			}
		}
		r.Seals[h] = Seal{Offset: v[0], Lines: int(v[1]), Tail: record.Fingerprint{CRC: uint32(v[2]), Len: int32(v[3])}}
	case "touched":
		r, h, err := ruleAndHash()
		if err != nil {
			return err
		}
		r.Touched[h] = true
	case "msgs":
		r, err := ruleAt(1)
		if err != nil {
			return err
		}
		if len(f) < 3 || len(f[2])%16 != 0 {
			return errors.New("msgs: bad list")
		}
		raw, err := hex.DecodeString(f[2])
		if err != nil {
			return fmt.Errorf("msgs: %w", err)
		}
		for i := 0; i < len(raw); i += 8 {
			r.Msgs[binary.BigEndian.Uint64(raw[i:])] = true
		}
	default:
		return fmt.Errorf("unknown line %q", f[0])
	}
	return err
}
