package terms

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/recall-dev/recall/internal/atomicfile"
	"github.com/recall-dev/recall/internal/rawfile"
	"github.com/recall-dev/recall/textrules"
)

// ViewFileName is the view: which segments cover the committed rows and
// which generations are dead, written by the run that completes the term
// index. A reader that must not read the manifest (the prompt hook's
// small binary, cmd/recall-hint) opens the segments it names. It is
// derived: any run rewrites it, and a reader that finds it missing,
// stale or damaged asks the full recall instead.
const ViewFileName = "terms-view-v1.txt"

// viewHeader opens the view; the text rules' version follows it.
const viewHeader = "recall terms view v1 rules "

// maxViewBytes bounds what ReadView reads: a view lists the segments
// (dozens) and the dead generations (one per transcript read again).
const maxViewBytes = 8 << 20

// View is what the view file says.
type View struct {
	Segments []Ref
	Dead     map[uint32]bool
}

// ErrNoView wraps every reason ReadView gives no view.
var ErrNoView = errors.New("no usable term index view")

// WriteView writes the view of segs (the cover, in block order) and the
// dead generations, replacing the last one whole.
func WriteView(dir string, segs []Ref, dead []uint32) error {
	var b bytes.Buffer
	b.WriteString(viewHeader + strconv.Itoa(textrules.FeatureVersion) + "\n")
	for _, r := range segs {
		b.WriteString("segment " + r.Name + "\n")
	}
	dead = slices.Sorted(slices.Values(dead))
	for _, g := range dead {
		b.WriteString("dead " + strconv.FormatUint(uint64(g), 10) + "\n")
	}
	b.WriteString("end\n")
	path := filepath.Join(dir, ViewFileName)
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b.Bytes()) {
		return nil // a run that changed nothing costs no write
	}
	return atomicfile.Write(path, b.Bytes(), 0o600, nil)
}

// ReadView reads the view of dir. Segments must follow one another from
// block 0 in this format; a view of other text rules is stale.
func ReadView(dir string) (*View, error) {
	path := filepath.Join(dir, ViewFileName)
	data, err := rawfile.ReadFile(path, maxViewBytes+1) // the prompt hook reads it on every prompt
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoView, err)
	}
	return parseView(data)
}

func parseView(data []byte) (*View, error) {
	if len(data) > maxViewBytes {
		return nil, fmt.Errorf("%w: %d bytes", ErrNoView, len(data))
	}
	v := &View{Dead: map[uint32]bool{}}
	lines := bytes.SplitAfter(data, []byte("\n"))
	want := viewHeader + strconv.Itoa(textrules.FeatureVersion) + "\n"
	if string(lines[0]) != want {
		return nil, fmt.Errorf("%w: not a view of these text rules", ErrNoView)
	}
	at, ended, n := 0, false, 1
	for ; !ended && n < len(lines); n++ {
		line, ok := bytes.CutSuffix(lines[n], []byte("\n"))
		if !ok {
			break // cut short
		}
		kind, value, _ := bytes.Cut(line, []byte(" "))
		switch string(kind) {
		case "segment":
			r, ok := ParseName(string(value))
			if !ok || r.Version != FormatVersion || r.First != at || r.End <= r.First {
				return nil, fmt.Errorf("%w: segment %q", ErrNoView, value)
			}
			v.Segments = append(v.Segments, r)
			at = r.End
		case "dead":
			g, err := strconv.ParseUint(string(value), 10, 32)
			if err != nil {
				return nil, fmt.Errorf("%w: dead %q", ErrNoView, value)
			}
			v.Dead[uint32(g)] = true
		case "end":
			ended = len(value) == 0
		default:
			return nil, fmt.Errorf("%w: line %q", ErrNoView, line)
		}
	}
	// What follows "end\n" is nothing: SplitAfter leaves one empty piece.
	if !ended || n != len(lines)-1 || len(lines[n]) != 0 {
		return nil, fmt.Errorf("%w: cut short or run on", ErrNoView)
	}
	return v, nil
}
