package textrules

import (
	"fmt"
	"strings"
	"testing"
)

func TestDetectRecallEvent(t *testing.T) {
	tests := []struct {
		role, text string
		want       bool
		words      string
	}{
		{"tool", `Bash: recall "jwt auth" --require implement`, true, "[jwt auth implement]"},
		{"tool", `Bash: cd /src && ~/go/bin/recall search kubernetes ingress | head`, true, "[kubernetes ingress]"},
		{"tool", `Bash: RECALL_INDEX_DIR=/tmp/x recall -l websocket`, true, "[websocket]"},
		{"tool", `Bash: memory search "stripe webhooks"`, true, "[stripe webhooks]"},
		{"tool", `mcp__recall__search: flaky reconnect test`, true, "[flaky reconnect test]"},
		{"tool", `Bash: cd ~/src/recall && make test`, false, "[]"},
		{"tool", `Bash: ls recall`, false, "[]"},
		{"tool", `Edit: /src/recall/main.go`, false, "[]"},
		{"assistant", "I'll search my memory for the JWT refresh work.", true, "[jwt refresh work]"},
		{"assistant", "I ran `recall pricing rounding` and found two sessions.", true, "[pricing rounding]"},
		{"user", "Did you remember what we talked about caching?", true, "[caching]"},
		{"assistant", "I don't recall the exact flag, let me check the docs.", false, "[]"},
		{"assistant", "I'll search the codebase for the handler.", false, "[]"},
		{"assistant", "Now I'LL SEARCH MY memory for jwt refresh.", true, "[jwt refresh]"},
		{"user", "DID YOU remember what we TALKED ABOUT the cache", true, "[cache]"},
		{"assistant", "Über memory search zebra", true, "[zebra]"},
	}
	for _, tt := range tests {
		words, ok := DetectRecallEvent(tt.role, tt.text)
		if ok != tt.want || (ok && fmt.Sprint(words) != tt.words) {
			t.Errorf("DetectRecallEvent(%q, %q) = %v, %v; want %s, %v", tt.role, tt.text, words, ok, tt.words, tt.want)
		}
	}
}

// TestMayBeRecallEventIsContains checks the rare-byte search against the
// plain strings.Contains it replaces, at every position and edge.
func TestMayBeRecallEventIsContains(t *testing.T) {
	plain := func(s string) bool {
		return strings.Contains(s, "ecall") || strings.Contains(s, "emory") || strings.Contains(s, "emember")
	}
	words := []string{"ecall", "emory", "emember", "recall", "Memory", "remember", "ecal", "mory", "emembe", "eecall", "ccall", "yy", "bb", "ememory"}
	fills := []string{"", "x", "e", "c", "y", "b", "xy", "eme", "ca"}
	for _, w := range words {
		for _, pre := range fills {
			for _, post := range fills {
				s := pre + w + post
				for cut := 0; cut <= len(s); cut++ {
					if got, want := mayBeRecallEvent(s[:cut]), plain(s[:cut]); got != want {
						t.Errorf("mayBeRecallEvent(%q) = %v, strings.Contains says %v", s[:cut], got, want)
					}
				}
			}
		}
	}
}

// FuzzMayBeRecallEvent checks the prefilter against strings.Contains on
// any text: a row it wrongly rejects would lose its recall event.
func FuzzMayBeRecallEvent(f *testing.F) {
	for _, s := range []string{"", "recall", "do you remember", "Memory", "ecal", "eemory", "xxemembe",
		"1234567ecall", "123456emory!", "abcdefgemember", "ebemdl ecalm", "1234567e" + "mory"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.Contains(s, "ecall") || strings.Contains(s, "emory") || strings.Contains(s, "emember")
		if got := mayBeRecallEvent(s); got != want {
			t.Fatalf("mayBeRecallEvent(%q) = %v, want %v", s, got, want)
		}
	})
}

// referencePhraseEnd is phraseEnd as it was: every phrase searched for.
func referencePhraseEnd(lower string) int {
	best := -1
	for _, p := range recallPhrases {
		if i := strings.Index(lower, p); i >= 0 && (best < 0 || i+len(p) < best) {
			best = i + len(p)
		}
	}
	if i := strings.Index(lower, "did you remember"); i >= 0 {
		if j := strings.Index(lower[i:], "talked about"); j >= 0 && (best < 0 || i+j+len("talked about") < best) {
			best = i + j + len("talked about")
		}
	}
	return best
}

func TestPhraseKernels(t *testing.T) {
	for i, p := range recallPhrases {
		if k := recallPhraseKernels[i]; k < 0 || !strings.Contains(p, phraseKernels[k]) {
			t.Errorf("phrase %q: kernel %d", p, k)
		}
	}
}

// FuzzPhraseEnd: looking for phrases only where their kernel is finds the
// phrase every search found.
func FuzzPhraseEnd(f *testing.F) {
	for _, s := range []string{"", "memory search", "i'll search my past sessions now", "i'll search the memory, go back to a memory",
		"did you remember what we talked about", "memory", "i'll search", "xmemory recall", "i'll search the history and memory search",
		"memory is memory search", "i'll search, i'll search my history", "memory recall, memory search",
		"I'LL Search MY Memory", "Did You Remember what we Talked About", "MEMORY SEARCH", "mEmOrY sEaRcH"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lower := strings.ToLower(s)
		if got, want := phraseEnd(lower), referencePhraseEnd(lower); got != want {
			t.Fatalf("phraseEnd(%q) = %d, want %d", lower, got, want)
		}
		if isASCII(s) {
			if got, want := phraseEndFold(s), phraseEnd(lower); got != want {
				t.Fatalf("phraseEndFold(%q) = %d, phraseEnd of its lowercase %d", s, got, want)
			}
		}
	})
}
