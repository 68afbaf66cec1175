package store

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/recall-dev/recall/internal/atomicfile"
	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/record"
)

// The tombstone: what `recall forget` removed stays removed. The rows a
// forget drops leave every file of the index, but their transcripts may
// still be on disk, and `--rebuild`, a recovery from a lost manifest, a
// `--repair` or the discovery of a transcript under a new path would read
// them again. The tombstone (forgottenName) holds each forget as a rule
// that every one of those honours, and holds no text: session ids,
// project paths, transcript paths and message uuids appear in it only as
// keyed hashes (SHA-256 of a random key kept in the file, the kind of
// value and the value, cut to 16 bytes; 8 for uuids), which tell whether a
// given id or path is forgotten and cannot be turned back into one.
//
// A rule selects rows as the forget did: a session, a project (that
// folder and those inside it), a time before which rows were written;
// each part given must match. Besides, it names the transcripts it keeps
// out whole (seals; a time rule that emptied a transcript keeps the offset
// it was read to, so that later lines are read) and the messages whose
// copies in other sessions (a fork, a resume) are forgotten with them.
//
// The file is replaced whole by atomic rename (fsync, rename, directory
// fsync) before the rows are removed: a forget killed in between is
// finished by the next index run, which finds the manifest's
// ForgetSerial behind the tombstone's Serial. A damaged tombstone stops
// every writer (errTombstoneDamaged): reading transcripts without it
// would bring back what was forgotten.

// forgottenName is the tombstone of an index directory.
const forgottenName = "forgotten-v1.tsv"

const forgottenMagic = "recall-forgotten\tv1"

// errTombstoneDamaged marks a tombstone that does not read: no transcript
// is read until it is repaired or removed.
var errTombstoneDamaged = errors.New("the list of forgotten sessions is damaged")

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

// ForgetRule is one forget. Zero Session, Project or Before match any.
type ForgetRule struct {
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
func (r *ForgetRule) Whole() bool { return r.Before == 0 }

// Tombstone is the content of forgottenName.
type Tombstone struct {
	// Serial counts the changes of the rules; the manifest records the
	// one its rows were last made to agree with (ForgetSerial).
	Serial uint64
	key    []byte
	Rules  []*ForgetRule
}

// NewTombstone is an empty tombstone with a new random key.
func NewTombstone() *Tombstone {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		panic(err) // crypto/rand does not fail on the systems recall runs on
	}
	return &Tombstone{key: key}
}

// readTombstone reads dir's tombstone; nil and no error when there is
// none.
func readTombstone(dir string) (*Tombstone, error) {
	data, err := os.ReadFile(filepath.Join(dir, forgottenName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	t, err := parseTombstone(data)
	if err != nil {
		return nil, problem.Problem{Err: fmt.Errorf("%w: %s: %v; no transcript is read until it reads",
			errTombstoneDamaged, filepath.Join(dir, forgottenName), err), Remedy: problem.RestoreTombstone}
	}
	return t, nil
}

// tombstoneID stats dir's tombstone (zero when there is none): the quick
// check's freshness state keeps it, so that a forget, even one killed
// before it changed the manifest, makes the next run look.
func tombstoneID(dir string) record.FileID {
	id, _ := record.StatID(filepath.Join(dir, forgottenName))
	return id
}

// Write replaces dir's tombstone durably.
func (t *Tombstone) write(dir string) error {
	if err := ensureDir(dir); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, forgottenName), t.encode(), 0o600, nil)
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
func (t *Tombstone) HashSession(id string) Hash   { return t.hash16("session", id) }
func (t *Tombstone) HashProject(path string) Hash { return t.hash16("project", cleanProject(path)) }
func (t *Tombstone) HashPath(path string) Hash    { return t.hash16("path", path) }
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
func (t *Tombstone) AddRule(r *ForgetRule) *ForgetRule {
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
func (t *Tombstone) Lift(pick func(*ForgetRule) bool) int {
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
	t.Rules = slices.DeleteFunc(t.Rules, func(r *ForgetRule) bool { return r.Lifted })
	return len(t.Rules) != n
}

// Active are the rules in force.
func (t *Tombstone) Active() []*ForgetRule {
	if t == nil {
		return nil
	}
	var out []*ForgetRule
	for _, r := range t.Rules {
		if !r.Lifted {
			out = append(out, r)
		}
	}
	return out
}

// ForgottenCounts is what `recall stats` says of the tombstone: counts,
// never ids.
type ForgottenCounts struct {
	Rules       int `json:"rules"`
	Sessions    int `json:"sessions"`     // rules naming a session
	Projects    int `json:"projects"`     // rules naming a project
	TimeRanges  int `json:"time_ranges"`  // rules bounded by a date
	Transcripts int `json:"transcripts"`  // transcripts kept out whole
	Messages    int `json:"messages"`     // messages kept out wherever copied
	Pending     int `json:"pending_undo"` // lifted rules the next run applies
}

// Counts counts the rules in force and what they keep out.
func (t *Tombstone) Counts() ForgottenCounts {
	var c ForgottenCounts
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
	rules    []*ForgetRule
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
func (f *Filter) selects(r *ForgetRule, session, project string) bool {
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
func (f *Filter) RuleOf(row *record.Row) *ForgetRule {
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
func (f *Filter) WholeRule(session, project string) *ForgetRule {
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
func (f *Filter) SealOf(path string) (Seal, *ForgetRule) {
	if f == nil {
		return Seal{}, nil
	}
	h := f.t.HashPath(path)
	var best Seal
	var rule *ForgetRule
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
func (t *Tombstone) SealPath(rule *ForgetRule, path string, s Seal) {
	rule.Seals[t.HashPath(path)] = s
	rule.Touched[t.HashPath(path)] = true
}

// Touch records that rule removed rows of the transcript at path.
func (t *Tombstone) Touch(rule *ForgetRule, path string) {
	rule.Touched[t.HashPath(path)] = true
}

// Rule returns the rule with that id, nil for none.
func (t *Tombstone) Rule(id int) *ForgetRule {
	for _, r := range t.Rules {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// msgsPerLine bounds a msgs line of the file.
const msgsPerLine = 512

func (t *Tombstone) encode() []byte {
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
	return fmt.Appendf(b, "end\t%08x\n", crc32.Checksum(b, crcTable))
}

func sortedHashes[V any](m map[Hash]V) []Hash {
	return slices.SortedFunc(maps.Keys(m), func(a, b Hash) int { return bytes.Compare(a[:], b[:]) })
}

func parseTombstone(data []byte) (*Tombstone, error) {
	end := bytes.LastIndex(data, []byte("\nend\t"))
	if !bytes.HasPrefix(data, []byte(forgottenMagic+"\n")) || end < 0 || !bytes.HasSuffix(data, []byte("\n")) {
		return nil, errors.New("not a tombstone, or cut short")
	}
	if err := checkSum(splitTabs(bytes.TrimSuffix(data[end+1:], []byte("\n")), nil), data[:end+1]); err != nil {
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
	ruleAt := func(i int) (*ForgetRule, error) {
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
		r := &ForgetRule{Seals: map[Hash]Seal{}, Touched: map[Hash]bool{}, Msgs: map[uint64]bool{}}
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
		r, err := ruleAt(1)
		if err != nil {
			return err
		}
		h, err := hashAt(2)
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
		r, err := ruleAt(1)
		if err != nil {
			return err
		}
		h, err := hashAt(2)
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

// MessageRows are the rows of forgotten messages whose key records go:
// message uuid → the texts of its rows (what a key is computed from,
// besides the content block's position).
type MessageRows map[string][]string

// Add notes a row.
func (mr MessageRows) Add(r *record.Row) {
	if r.UUID != "" {
		mr[r.UUID] = append(mr[r.UUID], r.Text)
	}
}

// forgottenKeys returns the keys, among the key records of generations
// gens, that identify the messages rows: what a forget that leaves
// other rows of those generations drops from the keys file. A key
// hashes a message uuid with its content block's position in the line,
// which a row does not hold, so every position is tried (as recovery's
// cutKeys does), against the records there are.
func forgottenKeys(dir string, m *Manifest, gens map[uint32]bool, rows MessageRows) (map[uint64]bool, error) {
	out := map[uint64]bool{}
	if len(gens) == 0 || len(rows) == 0 {
		return out, nil
	}
	snap, err := snapshotOf(dir, m)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	recs, err := snap.liveKeys()
	if err != nil {
		return nil, err
	}
	return messageKeys(recs, gens, rows), nil
}

// messageKeys returns the keys of the records recs of generations gens
// that identify one of the messages rows.
func messageKeys(recs []byte, gens map[uint32]bool, rows MessageRows) map[uint64]bool {
	out := map[uint64]bool{}
	present := map[uint64]bool{}
	for off := 0; off+uuidRecordSize <= len(recs); off += uuidRecordSize {
		if gens[binary.LittleEndian.Uint32(recs[off+8:])] {
			present[binary.LittleEndian.Uint64(recs[off:])] = true
		}
	}
	if len(present) == 0 {
		return out
	}
	for u, texts := range rows {
		for _, text := range texts {
			for block := range 256 {
				for _, k := range record.RowKeys(u, text, block) {
					if present[k] {
						out[k] = true
					}
				}
			}
		}
	}
	return out
}

// withoutKeys returns the records of recs whose key is not in drop.
func withoutKeys(recs []byte, drop map[uint64]bool) []byte {
	if len(drop) == 0 {
		return recs
	}
	out := make([]byte, 0, len(recs))
	for off := 0; off+uuidRecordSize <= len(recs); off += uuidRecordSize {
		if !drop[binary.LittleEndian.Uint64(recs[off:])] {
			out = append(out, recs[off:off+uuidRecordSize]...)
		}
	}
	return out
}

// keyOwners maps the key of every message indexed from a live generation
// to that generation: who owns a message, for a forget that must not take
// a copy's original with it.
func keyOwners(dir string, m *Manifest) (map[uint64]uint32, error) {
	snap, err := snapshotOf(dir, m)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	recs, err := snap.liveKeys()
	if err != nil {
		return nil, err
	}
	out := make(map[uint64]uint32, len(recs)/uuidRecordSize)
	for off := 0; off+uuidRecordSize <= len(recs); off += uuidRecordSize {
		out[binary.LittleEndian.Uint64(recs[off:])] = binary.LittleEndian.Uint32(recs[off+8:])
	}
	return out, nil
}
