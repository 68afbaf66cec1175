package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// idContexts are the prose and code identifiers turn up in. Each is
// filled with one id (%[1]s) and, where a second is wanted, another
// (%[2]s).
var idContexts = []string{
	"commit %[1]s fixed the flaky test",
	"git show %[1]s:store/manifest.go | head -40",
	"git rebase -i %[1]s~3",
	"Merge: %[1]s %[2]s",
	"the request id was %[1]s, the trace id %[2]s",
	`{"sessionId": "%[1]s", "parentUuid": "%[2]s", "type": "user"}`,
	`id := "%[1]s"` + "\nif err := store.Delete(ctx, id); err != nil {",
	"docker pull ghcr.io/acme/api@sha256:%[1]s",
	"%[1]s  recall-linux-amd64.tar.gz",
	"ls ~/.claude/projects/-home-dev-src-shop/%[1]s.jsonl",
	"[1/2] %[2]s • /home/dev/src/shop | %[1]s | 5 matches",
	"const digest = \"%[1]s\" // sha256 of the fixture",
	"etag: W/\"%[1]s\"\ncache-control: max-age=60",
	"resolved %[1]s (was %[2]s)",
	"| %[1]s | %[2]s | ok |",
	"SELECT * FROM events WHERE session_id = '%[1]s' AND parent = '%[2]s';",
	"expected hash %[1]s, got %[2]s",
}

func randomUUID(r *rand.Rand) string {
	var b [16]byte
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func randomHex(r *rand.Rand, n int) string {
	b := make([]byte, (n+1)/2)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return hex.EncodeToString(b)[:n]
}

// TestIdentifiersAreNotSecrets: 10,000 random uuids, 10,000 random commit
// hashes (7 to 40 hex digits) and 10,000 sha256 ids, in prose and code,
// and none redacted.
func TestIdentifiersAreNotSecrets(t *testing.T) {
	r := New()
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []struct {
		name string
		make func() string
	}{
		{"uuid", func() string { return randomUUID(rng) }},
		{"commit hash", func() string { return randomHex(rng, 7+rng.IntN(34)) }},
		{"sha256", func() string { return randomHex(rng, 64) }},
	}
	for _, k := range kinds {
		for i := range 10000 {
			a, b := k.make(), k.make()
			text := fmt.Sprintf(idContexts[i%len(idContexts)], a, b)
			if f := r.Find(text); len(f) > 0 {
				t.Fatalf("%s %d: %q: redacted %q as %s", k.name, i, text, text[f[0].Start:f[0].End], f[0].Kind)
			}
		}
	}
}

// TestImageDataIsNotASecret: a base64 PNG of random pixels (as random as
// base64 gets) in a data URL, alone and in markdown and HTML.
func TestImageDataIsNotASecret(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for y := range 64 {
		for x := range 64 {
			img.Set(x, y, color.RGBA{byte(rng.UintN(256)), byte(rng.UintN(256)), byte(rng.UintN(256)), 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	url := "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
	r := New()
	for _, text := range []string{
		url,
		"![screenshot](" + url + ")",
		`<img alt="chart" src="` + url + `">`,
		`{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "` + url[len("data:image/png;base64,"):] + `"}}`,
	} {
		if f := r.Find(text); len(f) > 0 {
			t.Fatalf("redacted %q… as %s", text[f[0].Start:min(f[0].End, f[0].Start+60)], f[0].Kind)
		}
	}
}

// TestGoSourceIsNotSecret redacts nothing in Go's own source: ordinary
// code and its comments, 60-odd megabytes of it. Test files and testdata
// are left out: they hold real test keys, which are secrets of their
// shape.
func TestGoSourceIsNotSecret(t *testing.T) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("no Go source: %v", err)
	}
	r := New()
	files, size := 0, 0
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(b)
		for _, f := range r.Find(text) {
			t.Errorf("%s: redacted %q as %s", path, text[f.Start:f.End], f.Kind)
		}
		files++
		size += len(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 1000 {
		t.Fatalf("read only %d files under %s", files, src)
	}
	t.Logf("%d files, %d MB", files, size>>20)
}
