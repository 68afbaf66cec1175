package filter

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// referenceStripNoiseTags and referenceContainsNoiseFragment are the
// searches as they were before startsAnyAfterLT, one per tag or fragment.
func referenceStripNoiseTags(text string) (string, bool) {
	if !strings.Contains(text, "<") {
		return text, false
	}
	found := false
	for _, tag := range noiseTags {
		var had bool
		text, had = stripElement(text, tag)
		found = found || had
	}
	return text, found
}

func referenceContainsNoiseFragment(text string) bool {
	for _, f := range noiseFragments {
		for at := text; ; {
			i := strings.Index(at, f)
			if i < 0 {
				break
			}
			if fragmentEnds(f[1:], at[i+len(f):]) {
				return true
			}
			at = at[i+1:]
		}
	}
	return false
}

var noiseScanSeeds = []string{
	"", "plain prose", "a < b and c<d", "<system-reminder>x</system-reminder> the question",
	"<ide_opened_file>f</ide_opened_file>", "List<String> and <invoke name=x>", "</parameter>",
	"<<system-reminder", "<command-names-list> stays", "<command-name>/x</command-name><command-args>a</command-args> rest",
	"ends with <", "<bash-stdout>never closed", "<function_calls", "x<\n/function_calls>",
	"a <parameterized fused kernel region>", "<invoked> <parameter\tname", "<bash-> <ide_x",
}

// TestNoiseFragmentWholeName: a fragment is tool syntax only as a whole
// tag name; a word it begins is prose (a 22,000-character plan naming a
// "<parameterized fused kernel region>" was dropped as noise).
func TestNoiseFragmentWholeName(t *testing.T) {
	for text, want := range map[string]bool{
		"the plan: lower each '<parameterized fused kernel region>' to one dispatch": false,
		"<invoked-by> and <parameters-list> and <function_callsite>":                 false,
		"a <bash-> and <ide_9>":                            false,
		`<invoke name="Bash"><parameter name="command">ls`: true,
		"<parameter>x":                                     true,
		"stray </parameter> closer":                        true,
		"<function_calls>":                                 true,
		"ends with <invoke":                                true,
		"<ide_opened_file>a.go":                            true,
		"<bash-stdout>ok":                                  true,
		"<bash-input \n":                                   true,
	} {
		if got := containsNoiseFragment(text); got != want {
			t.Errorf("containsNoiseFragment(%q) = %v, want %v", text, got, want)
		}
	}
}

// FuzzNoiseScan: the one-pass tag and fragment searches give what the
// searches one word at a time gave.
func FuzzNoiseScan(f *testing.F) {
	for _, s := range noiseScanSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, gotHad := stripNoiseTags(text)
		want, wantHad := referenceStripNoiseTags(text)
		if got != want || gotHad != wantHad {
			t.Fatalf("stripNoiseTags(%q) = %q, %v; want %q, %v", text, got, gotHad, want, wantHad)
		}
		if g, w := containsNoiseFragment(text), referenceContainsNoiseFragment(text); g != w {
			t.Fatalf("containsNoiseFragment(%q) = %v, want %v", text, g, w)
		}
	})
}

func TestNoiseFragmentsStartWithLT(t *testing.T) {
	for _, f := range noiseFragments {
		if !strings.HasPrefix(f, "<") {
			t.Errorf("fragment %q does not start with '<': startsAnyAfterLT would miss it", f)
		}
	}
}

func TestFewerRunesThan(t *testing.T) {
	for _, s := range []string{"", "short", "123456789", "1234567890", "ééééééééé", "éééééééééé",
		"\xff\xff\xff\xff\xff\xff\xff\xff\xff", "😀😀😀😀😀😀😀😀😀", "😀😀😀😀😀😀😀😀😀😀", strings.Repeat("x", 39), strings.Repeat("x", 40)} {
		for _, n := range []int{0, 1, 9, 10, 11} {
			if got, want := fewerRunesThan(s, n), utf8.RuneCountInString(s) < n; got != want {
				t.Errorf("fewerRunesThan(%q, %d) = %v, want %v", s, n, got, want)
			}
		}
	}
	// A Chinese, Japanese or Korean character counts two.
	for _, tt := range []struct {
		s     string
		short bool
	}{
		{"你好", true}, {"谢谢你", true}, {"当前使用的大模型", false}, {"修复这个错误", false},
		{"バグを直して", false}, {"고쳐줘", true}, {"버그를 고쳐줘", false}, {"fix 这个问题", false}, {"fix 这", true},
	} {
		if got := fewerRunesThan(tt.s, MinChars); got != tt.short {
			t.Errorf("fewerRunesThan(%q, %d) = %v, want %v", tt.s, MinChars, got, tt.short)
		}
	}
}
