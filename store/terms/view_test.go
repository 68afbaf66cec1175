package terms

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/recall-dev/recall/textrules"
)

func TestViewRoundTrip(t *testing.T) {
	dir := t.TempDir()
	segs := []Ref{{Name: FileName(1, 0, 255)}, {Name: FileName(1, 255, 300)}}
	for i := range segs {
		segs[i], _ = ParseName(segs[i].Name)
	}
	if err := WriteView(dir, segs, []uint32{9, 3}); err != nil {
		t.Fatal(err)
	}
	v, err := ReadView(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Segments) != 2 || v.Segments[1] != segs[1] || !v.Dead[3] || !v.Dead[9] || len(v.Dead) != 2 {
		t.Fatalf("read back %+v", v)
	}
}

func TestViewRefused(t *testing.T) {
	head := viewHeader + strconv.Itoa(textrules.FeatureVersion) + "\n"
	seg := "segment " + FileName(1, 0, 10) + "\n"
	for _, tc := range []struct{ name, text string }{
		{"empty", ""},
		{"other rules", viewHeader + "0\n" + seg + "end\n"},
		{"cut short", head + seg},
		{"a line after the end", head + seg + "end\n" + seg},
		{"a gap in the blocks", head + "segment " + FileName(1, 5, 10) + "\nend\n"},
		{"not a segment name", head + "segment rows.zst\nend\n"},
		{"a bad generation", head + "dead -1\nend\n"},
		{"an unknown line", head + "who knows\nend\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if v, err := parseView([]byte(tc.text)); !errors.Is(err, ErrNoView) {
				t.Fatalf("parseView(%q) = %+v, %v; want ErrNoView", tc.text, v, err)
			}
		})
	}
	if _, err := ReadView(t.TempDir()); !errors.Is(err, ErrNoView) {
		t.Fatalf("missing view: %v", err)
	}
}

func FuzzParseView(f *testing.F) {
	f.Add([]byte(viewHeader + strconv.Itoa(textrules.FeatureVersion) + "\nsegment " + FileName(1, 0, 10) + "\ndead 4\nend\n"))
	f.Add([]byte("end\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := parseView(data)
		if err != nil {
			return
		}
		at := 0
		for _, r := range v.Segments {
			if r.First != at || r.End <= r.First || r.Version != FormatVersion {
				t.Fatalf("segments do not follow one another: %+v", v.Segments)
			}
			at = r.End
		}
		if !strings.HasSuffix(string(data), "end\n") {
			t.Fatalf("accepted a view that does not end: %q", data)
		}
	})
}

// A view on disk is replaced whole: the old one reads until the new one
// is in place.
func TestViewReplaced(t *testing.T) {
	dir := t.TempDir()
	a, _ := ParseName(FileName(1, 0, 10))
	b, _ := ParseName(FileName(1, 0, 20))
	for _, segs := range [][]Ref{{a}, {b}} {
		if err := WriteView(dir, segs, nil); err != nil {
			t.Fatal(err)
		}
	}
	v, err := ReadView(dir)
	if err != nil || len(v.Segments) != 1 || v.Segments[0] != b {
		t.Fatalf("view %+v, %v", v, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 || entries[0].Name() != filepath.Base(ViewFileName) {
		t.Fatalf("left behind %v", entries)
	}
}
