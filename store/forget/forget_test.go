package forget

import (
	"bytes"
	"strings"
	"testing"

	"github.com/recall-dev/recall/record"
)

// sample is a tombstone with one rule of each kind: a whole session, a
// project before a time (with a sealed transcript and forgotten
// messages), and a lifted one.
func sample() *Tombstone {
	t := NewTombstone()
	whole := t.AddRule(&Rule{Session: t.HashSession("s-1"), Seals: map[Hash]Seal{}, Touched: map[Hash]bool{}, Msgs: map[uint64]bool{}})
	t.SealPath(whole, "/p/s-1.jsonl", Seal{Offset: -1})
	dated := t.AddRule(&Rule{Project: t.HashProject("/home/dev/shop"), Before: 1_767_225_600_000, Seals: map[Hash]Seal{}, Touched: map[Hash]bool{}, Msgs: map[uint64]bool{}})
	t.SealPath(dated, "/p/s-2.jsonl", Seal{Offset: 4096, Lines: 12, Tail: record.Fingerprint{CRC: 0xdeadbeef, Len: 256}})
	dated.Msgs[t.HashUUID("u-1")] = true
	lifted := t.AddRule(&Rule{Session: t.HashSession("s-3"), Lifted: true, Seals: map[Hash]Seal{}, Touched: map[Hash]bool{}, Msgs: map[uint64]bool{}})
	t.Touch(lifted, "/p/s-3.jsonl")
	t.Serial = 7
	return t
}

// TestEncodeParseRoundTrip: what Encode writes, Parse reads back to the
// same bytes, and the file names no session id or path in clear.
func TestEncodeParseRoundTrip(t *testing.T) {
	ts := sample()
	enc := ts.Encode()
	got, err := Parse(enc)
	if err != nil {
		t.Fatal(err)
	}
	if again := got.Encode(); !bytes.Equal(again, enc) {
		t.Fatalf("round trip changed the file:\n%s\nagainst\n%s", again, enc)
	}
	for _, clear := range []string{"s-1", "shop", "s-2.jsonl", "u-1"} {
		if strings.Contains(string(enc), clear) {
			t.Errorf("the tombstone holds %q in clear", clear)
		}
	}
	if f := got.Filter(); f.WholeRule("s-1", "/elsewhere") == nil {
		t.Error("the parsed tombstone does not forget session s-1")
	}
}

// TestParseRefusesDamage: a flipped byte, a cut tail or another file is
// refused, never read as fewer rules.
func TestParseRefusesDamage(t *testing.T) {
	enc := sample().Encode()
	flipped := bytes.Clone(enc)
	flipped[len(flipped)/2] ^= 0x20
	for name, data := range map[string][]byte{
		"flipped byte": flipped,
		"cut tail":     enc[:len(enc)-20],
		"empty":        nil,
		"other file":   []byte("session_id\ttimestamp\n"),
	} {
		if _, err := Parse(data); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

// FuzzParse: any bytes are refused or read; what is read encodes to
// bytes that read back to the same encoding.
func FuzzParse(f *testing.F) {
	f.Add(sample().Encode())
	f.Add([]byte(forgottenMagic + "\nend\t00000000\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := Parse(data)
		if err != nil {
			return
		}
		enc := ts.Encode()
		back, err := Parse(enc)
		if err != nil {
			t.Fatalf("its own encoding does not parse: %v", err)
		}
		if again := back.Encode(); !bytes.Equal(again, enc) {
			t.Fatalf("encoding is not stable:\n%q\n%q", enc, again)
		}
	})
}
