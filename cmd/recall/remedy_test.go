package main

import (
	"errors"
	"testing"

	"github.com/recall-dev/recall/internal/problem"
)

// TestCLIWording: each remedy reads at the shell as the command that
// mends the damage, after the error's own text.
func TestCLIWording(t *testing.T) {
	damaged := errors.New("manifest.json: index manifest damaged")
	for _, tt := range []struct {
		remedy problem.Remedy
		mends  string
		want   string
	}{
		{problem.None, "", "manifest.json: index manifest damaged"},
		{problem.Index, "recovers it from the data files", "manifest.json: index manifest damaged; `recall index` recovers it from the data files"},
		{problem.Repair, "rebuilds it from the rows", "manifest.json: index manifest damaged; `recall index --repair` rebuilds it from the rows"},
		{problem.RestoreTombstone, "", "manifest.json: index manifest damaged (restore it from a backup, or remove it and run `recall forget` again)"},
	} {
		if got := sayCLI(problem.Problem{Err: damaged, Remedy: tt.remedy, Mends: tt.mends}); got != tt.want {
			t.Errorf("remedy %d: %q, want %q", tt.remedy, got, tt.want)
		}
	}
}
