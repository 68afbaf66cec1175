package resyntax

import (
	"regexp/syntax"
	"strings"
	"testing"
)

func TestRequiredRun(t *testing.T) {
	tests := []struct {
		src   string
		min   int
		in    string // a run the class holds
		notIn byte   // a byte it does not
		past  bool   // bytes past ASCII count
	}{
		{`(?i)[\w.-]{0,50}?(?:linear)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|:)([a-f0-9]{32})(?:['"\s;]|$)`, 32, "aF09", 'g', false},
		{`a|b{40}`, 0, "", 0, false},
		{`x([0-9]{20})?`, 0, "", 0, false},
		{`[a-z]{5}[0-9]{20}`, 20, "0123456789", 'a', false},
		{`(?i)k[a-z]{18,}`, 18, "azAZ", '0', true}, // (?i)k folds to the Kelvin sign, s to ſ
		{`(?:ab[0-9]{30})+`, 30, "09", 'a', false},
		{`[^a]{25}`, 25, "bz", 'a', true},
	}
	for _, tt := range tests {
		re, err := syntax.Parse(tt.src, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		r := requiredRun(re)
		if r.Min != tt.min {
			t.Errorf("%s: run of %d, want %d", tt.src, r.Min, tt.min)
			continue
		}
		if r.Min == 0 {
			continue
		}
		for i := 0; i < len(tt.in); i++ {
			if !r.byte[tt.in[i]] {
				t.Errorf("%s: %q not in the class", tt.src, tt.in[i])
			}
		}
		if r.byte[tt.notIn] || r.byte[0xE2] != tt.past {
			t.Errorf("%s: class bytes wrong (%q: %v, past ASCII: %v)", tt.src, tt.notIn, r.byte[tt.notIn], r.byte[0xE2])
		}
		if !r.In(strings.Repeat(tt.in[:1], r.Min)) || r.In(strings.Repeat(tt.in[:1], r.Min-1)+string(tt.notIn)+tt.in[:1]) {
			t.Errorf("%s: in() wrong at the run's length", tt.src)
		}
	}
}
