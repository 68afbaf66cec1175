package textrules

import (
	"slices"
	"testing"
)

func TestCodeSpans(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string // the text of each span
	}{
		{"prose", "no code here", nil},
		{"inline", "run `go test` and `go vet`", []string{"`go test`", "`go vet`"}},
		{"double backticks", "a ``x ` y`` b", []string{"``x ` y``"}},
		{"unclosed inline is text", "it's a ` stray", nil},
		{"inline does not cross lines", "a `b\nc` d", nil},
		{"fence", "before\n```go\nx := 1\n```\nafter", []string{"```go\nx := 1\n```"}},
		{"tilde fence", "~~~\ncode\n~~~", []string{"~~~\ncode\n~~~"}},
		{"unclosed fence runs to the end", "a\n```\ncode\nmore", []string{"```\ncode\nmore"}},
		{"info string does not close", "```\nx\n```go\ny\n```", []string{"```\nx\n```go\ny\n```"}},
		{"inline inside fence is part of it", "```\n`a`\n```\n`b`", []string{"```\n`a`\n```", "`b`"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, s := range CodeSpans(tt.text) {
				got = append(got, tt.text[s.Start:s.End])
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("CodeSpans(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}
