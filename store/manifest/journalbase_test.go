package manifest

import (
	"reflect"
	"testing"

	"github.com/recall-dev/recall/record"
)

// TestCommittedStateSeesEveryField: the journal writes a file whose state
// differs from its committed one, so a change to any field of a FileState
// must change committedOf, or that change would be lost with the next
// crash. Every field is walked by reflection, so a field added to
// FileState and not to committedState fails here.
func TestCommittedStateSeesEveryField(t *testing.T) {
	m := New()
	st := record.FileState{Path: "/p/a.jsonl", Gen: 3, Dev: 1, Ino: 2, Size: 300, MtimeNs: 4, Offset: 300, Lines: 5, Rows: 6,
		Session: "s", Project: "p", Kind: record.KindMain, Agent: "a", Verdict: record.VerdictIndexed, Tail: record.Fingerprint{CRC: 7, Len: 8}}
	was := m.committedOf(&st)
	if again := st; m.committedOf(&again) != was {
		t.Fatal("an equal state gives another committed state")
	}
	typ := reflect.TypeFor[record.FileState]()
	for i := range typ.NumField() {
		changed := st
		changeValue(t, reflect.ValueOf(&changed).Elem().Field(i), typ.Field(i).Name)
		if m.committedOf(&changed) == was {
			t.Errorf("a change of %s leaves the committed state as it was: the journal would miss it", typ.Field(i).Name)
		}
	}
	// Strings are hashed with their lengths: moving bytes from one to
	// the next is a change.
	moved := st
	moved.Session, moved.Project = "sp", ""
	if m.committedOf(&moved) == was {
		t.Error("session \"s\", project \"p\" and session \"sp\", project \"\" give the same committed state")
	}
}

// changeValue changes v, a FileState field, to another value of its type.
func changeValue(t *testing.T, v reflect.Value, name string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(v.Int() + 1)
	case reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Struct:
		for j := range v.NumField() {
			changeValue(t, v.Field(j), name)
		}
	default:
		t.Fatalf("field %s of kind %s: teach changeValue (and committedState) about it", name, v.Kind())
	}
}

// TestForCommitHandsTheBaseToTheSnapshot: the manifest a commit is taken
// from keeps no journal base (the commit gives one back), and a last
// commit's snapshot keeps none either.
func TestForCommitHandsTheBaseToTheSnapshot(t *testing.T) {
	dir, _, _ := journaledIndex(t)
	m, err := ReadLazy(dir)
	must(t, err)
	if m.base == nil {
		t.Fatal("a journaled manifest read lazily has no base")
	}
	snap, err := m.ForCommit(false)
	must(t, err)
	if m.base != nil || snap.base == nil || snap.noBase {
		t.Fatalf("ForCommit(false): base left on m %v, on the snapshot %v, noBase %v", m.base != nil, snap.base != nil, snap.noBase)
	}
	m.SetJournalState(snap.JournalState())
	last, err := m.ForCommit(true)
	must(t, err)
	if m.base != nil || !last.noBase {
		t.Fatalf("ForCommit(true): base left on m %v, noBase %v", m.base != nil, last.noBase)
	}
}
