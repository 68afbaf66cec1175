package indexer

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/klauspost/compress/zstd"

	"github.com/recall-dev/recall/store"
)

// indexHolds reports whether any file of the index directory holds word,
// in any case, raw or (for zstd files) decompressed.
func indexHolds(t *testing.T, idx, word string) []string {
	t.Helper()
	entries, err := os.ReadDir(idx)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	needle := []byte(strings.ToUpper(word))
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(idx, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(e.Name(), ".zst") {
			dec, _ := zstd.NewReader(nil)
			if raw, err := dec.DecodeAll(data, nil); err == nil {
				data = append(data, raw...)
			}
			dec.Close()
		}
		if bytes.Contains(bytes.ToUpper(data), needle) {
			found = append(found, e.Name())
		}
	}
	return found
}

// TestForgetSession: after `recall forget --session X` no file of the
// index holds any of X's text, other sessions are untouched, and the
// transcript still on disk is not read back in.
func TestForgetSession(t *testing.T) {
	src, path := newSessionFile(t)
	appendText(t, path, promptLine(1, "the quokkaflux migration plan for the billing service")+promptLine(2, "more about quokkaflux retries"))
	other := filepath.Join(filepath.Dir(path), "99999999-9999-4999-8999-999999999999.jsonl")
	line := strings.ReplaceAll(promptLine(3, "an unrelated prompt about the zebrafrost cache"), testSession, "99999999-9999-4999-8999-999999999999")
	appendText(t, other, strings.ReplaceAll(line, "bbbbbbbb-0000", "cccccccc-0000"))
	idx := t.TempDir()
	runIndex(t, src, idx, "")
	if len(indexHolds(t, idx, "quokkaflux")) == 0 {
		t.Fatal("the session's text is not in the index to begin with")
	}

	dry, err := Forget(Options{Config: Config{IndexDir: idx, Sources: []string{src}}}, ForgetSelector{Session: testSession[:8]}, true)
	if err != nil || dry.Rows != 2 || !dry.DryRun {
		t.Fatalf("dry run = %+v, %v; want 2 rows", dry, err)
	}
	if len(indexHolds(t, idx, "quokkaflux")) == 0 {
		t.Fatal("the dry run removed rows")
	}
	rep, err := Forget(Options{Config: Config{IndexDir: idx, Sources: []string{src}}}, ForgetSelector{Session: testSession[:8]}, false)
	if err != nil || rep.Rows != 2 || rep.Sealed != 1 {
		t.Fatalf("forget = %+v, %v", rep, err)
	}
	if files := indexHolds(t, idx, "quokkaflux"); len(files) > 0 {
		t.Errorf("after forget, %v still hold the session's text", files)
	}
	if len(indexHolds(t, idx, "zebrafrost")) == 0 {
		t.Error("forget removed another session's text")
	}
	appendText(t, path, promptLine(4, "a later quokkaflux prompt in the forgotten session"))
	runIndex(t, src, idx, "")
	if files := indexHolds(t, idx, "quokkaflux"); len(files) > 0 {
		t.Errorf("the forgotten transcript came back: %v", files)
	}
	if _, err := Forget(Options{Config: Config{IndexDir: idx}}, ForgetSelector{Session: "ffff"}, false); err == nil {
		t.Error("forgetting an unknown session is not an error")
	}
	if d, err := store.Open(idx).Verify(); err != nil || !d.None() {
		t.Errorf("the index after forget: %+v, %v", d, err)
	}
}

// TestForgottenStaysForgottenAfterJournalLoss: a journal whose last
// record a crash tore, or that is missing, beside rows past the commit it
// names, makes the run recover the manifest from the rows; the
// transcripts a forget sealed have no rows left to say so, and must stay
// sealed (the manifest as far as it reads keeps them), not be read back
// in from disk.
func TestForgottenStaysForgottenAfterJournalLoss(t *testing.T) {
	tears := map[string]func(t *testing.T, journal string){
		"last record torn": func(t *testing.T, journal string) {
			info, err := os.Stat(journal)
			must(t, err)
			must(t, os.Truncate(journal, info.Size()-3))
		},
		"journal missing": func(t *testing.T, journal string) { must(t, os.Remove(journal)) },
	}
	for name, tear := range tears {
		t.Run(name, func(t *testing.T) {
			src, path := newSessionFile(t)
			appendText(t, path, promptLine(1, "the quokkaflux migration plan for the billing service")+promptLine(2, "more about quokkaflux retries"))
			otherSession := "99999999-9999-4999-8999-999999999999"
			other := filepath.Join(filepath.Dir(path), otherSession+".jsonl")
			asOther := func(line string) string {
				return strings.ReplaceAll(strings.ReplaceAll(line, testSession, otherSession), "bbbbbbbb-0000", "cccccccc-0000")
			}
			appendText(t, other, asOther(promptLine(3, "an unrelated prompt about the zebrafrost cache")))
			idx := t.TempDir()
			runIndex(t, src, idx, "")
			if _, err := Forget(Options{Config: Config{IndexDir: idx, Sources: []string{src}}}, ForgetSelector{Session: testSession[:8]}, false); err != nil {
				t.Fatal(err)
			}
			runIndex(t, src, idx, "") // the journal of the forget's checkpoint starts
			appendText(t, other, asOther(promptLine(5, "another zebrafrost prompt with enough words in it")))
			runIndex(t, src, idx, "") // a journal record: the commit the crash takes
			tear(t, filepath.Join(idx, manifest.JournalName))
			runIndex(t, src, idx, "")
			if files := indexHolds(t, idx, "quokkaflux"); len(files) > 0 {
				t.Errorf("the forgotten transcript came back: %v", files)
			}
			if len(indexHolds(t, idx, "another zebrafrost")) == 0 {
				t.Error("the rows of the torn commit were lost")
			}
		})
	}
}
