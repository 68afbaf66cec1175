package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompareOrWrite(t *testing.T) {
	const figures = "all 0.900\nkeyword 0.800\n"
	tests := []struct {
		name       string
		checkedIn  string // "" means no file
		write      bool
		wantErr    error
		wantOutput string
		wantFile   string
	}{
		{name: "same", checkedIn: figures, wantOutput: "same figures", wantFile: figures},
		{name: "changed", checkedIn: "all 0.900\nkeyword 0.700\n", wantErr: errDiffers, wantOutput: "-keyword 0.700\n+keyword 0.800", wantFile: "all 0.900\nkeyword 0.700\n"},
		{name: "write", checkedIn: "old\n", write: true, wantOutput: "wrote", wantFile: figures},
		{name: "missing", wantOutput: "", wantFile: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "results.txt")
			if tt.checkedIn != "" {
				if err := os.WriteFile(path, []byte(tt.checkedIn), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var out bytes.Buffer
			err := (&cli{Write: tt.write}).compareOrWrite(path, figures, &out)
			switch {
			case tt.name == "missing":
				if err == nil || !strings.Contains(err.Error(), "--write") {
					t.Errorf("missing file: error %v, want a hint to --write", err)
				}
				return
			case !errors.Is(err, tt.wantErr):
				t.Errorf("error %v, want %v", err, tt.wantErr)
			}
			if !strings.Contains(out.String(), tt.wantOutput) {
				t.Errorf("output %q, want it to contain %q", out.String(), tt.wantOutput)
			}
			if got, _ := os.ReadFile(path); string(got) != tt.wantFile {
				t.Errorf("file now %q, want %q", got, tt.wantFile)
			}
		})
	}
}

func TestLoCoMoOptions(t *testing.T) {
	opt, err := (&cli{LoCoMoScope: "joint", LoCoMoNow: "after", LoCoMoNames: true}).locomoOptions()
	if err != nil || !opt.Joint || !opt.Now.IsZero() || !opt.SpeakerNames {
		t.Errorf("joint, after, names: %+v, %v", opt, err)
	}
	opt, err = (&cli{LoCoMoScope: "conversation", LoCoMoNow: "2026-03-10"}).locomoOptions()
	if err != nil || opt.Joint || opt.Now.Format("2006-01-02T15:04Z07:00") != "2026-03-10T00:00Z" || opt.SpeakerNames {
		t.Errorf("conversation, 2026-03-10: %+v, %v", opt, err)
	}
	if _, err := (&cli{LoCoMoNow: "yesterday"}).locomoOptions(); err == nil || !strings.Contains(err.Error(), "--locomo-now") {
		t.Errorf("a bad --locomo-now: error %v", err)
	}
}
