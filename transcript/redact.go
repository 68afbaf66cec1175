package transcript

import (
	"strings"
	"unicode/utf8"

	"github.com/recall-dev/recall/redact"
)

// Secrets typed or echoed into a conversation (keys, tokens, passwords)
// are replaced by typed placeholders (package redact) as rows are built,
// so that the rows, and everything derived from them, never hold one.
// Work.KeepSecrets (recall index --no-redact) keeps them.

// redactMargin is more than the longest secret but a key block (tokens are
// at most a few hundred bytes, an 8192-bit RSA key block under 7 KiB); a
// longer key block cut at the margin is still found, as recall's
// private-key rule does not need the END line.
const redactMargin = 8 << 10

// redactHead returns text with its secrets redacted in at least the first
// keep bytes of the result, and in all of it when text is short. A row
// keeps at most keep bytes of its text (MaxRowText for messages, the tool
// row cap), so redacting a multi-megabyte message whole would be work
// thrown away; but redaction can shorten the text (a key block becomes a
// placeholder), so the span redacted grows until its result reaches keep
// plus a margin: a secret cut at the span's end then lies past the cap.
func (x *lineExtractor) redactHead(text string, keep int) string {
	if x.keepSecrets {
		return text
	}
	r := redact.Default()
	for limit := keep + redactMargin; ; limit *= 2 {
		if limit >= len(text) {
			return r.String(text)
		}
		cut := limit
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		head := r.String(text[:cut])
		if len(head) >= keep+redactMargin {
			return head + text[cut:]
		}
	}
}

// toolRow is a tool call's row: secrets are redacted before the cap, so
// the cap cannot cut one into a part no rule recognises.
func (x *lineExtractor) toolRow(name string, input []byte) string {
	if x.keepSecrets {
		return toolSummary(name, input)
	}
	return truncateRunes(x.redactHead(toolCall(name, input), maxToolText*utf8.UTFMax), maxToolText)
}

// A secret can be split across two messages: a key pasted in two parts,
// a message cut short and continued. Each message alone may hold only a
// part no rule recognises (the second half of a token is random
// characters), so the extractor keeps the end of the last message's
// text (splitTail bytes, unredacted, in memory only) and looks for a
// secret in it joined to the start of the next one (splitHead bytes):
// one that straddles the join is redacted in both rows, its part in this
// message and, if the previous row still holds it, its part there. The
// cost is one more redaction of at most splitTail+splitHead bytes per
// message.
const (
	splitTail = 256
	splitHead = 1024
	// splitPart is the least of a secret on each side of the join that
	// counts as split: less is a key that ends, or starts, a message.
	splitPart = 4
)

// redactText redacts a message's text for its row, and a secret split
// between the previous message and this one.
func (x *lineExtractor) redactText(text string) string {
	if x.keepSecrets {
		return text
	}
	prev := x.splitTail
	x.splitTail = ""
	if tail := tailOf(text, splitTail); endsInToken(tail) {
		x.splitTail = strings.Clone(tail)
	}
	if prev == "" {
		return x.redactHead(text, MaxRowText)
	}
	lead := len(text) - len(strings.TrimLeft(text, " \t\r\n"))
	head := text[lead:]
	if !startsWithToken(head) {
		return x.redactHead(text, MaxRowText)
	}
	if len(head) > splitHead {
		cut := splitHead
		for cut > 0 && !utf8.RuneStart(head[cut]) {
			cut--
		}
		head = head[:cut]
	}
	if head == "" {
		return x.redactHead(text, MaxRowText)
	}
	joined := prev + head
	for _, f := range redact.Default().Find(joined) {
		if f.Start > len(prev)-splitPart || f.End < len(prev)+splitPart {
			continue
		}
		// The part in the previous row, if it is still there.
		if x.splitRow >= 0 && x.splitRow < len(x.rows) {
			r := &x.rows[x.splitRow]
			if part := prev[f.Start:]; strings.HasSuffix(r.Text, part) {
				r.Text = r.Text[:len(r.Text)-len(part)] + redact.Placeholder(f.Kind)
			}
		}
		n := lead + f.End - len(prev)
		text = text[:lead] + redact.Placeholder(f.Kind) + text[n:]
		break
	}
	return x.redactHead(text, MaxRowText)
}

// minSplitRun is how long the run of characters that ends a message must
// be for a secret to be cut in it: a key's first part holds its prefix and
// some of its body (the shortest prefixes, "ghp_", "AKIA", are four
// characters). A message that ends in prose (a word and a full stop), in
// code or in a short word needs no look at the next one: that is most
// messages, and the look doubled redaction's cost when every message had
// it.
const minSplitRun = 8

// endsInToken reports whether text ends in a run of at least minSplitRun
// characters that are not spaces, the last a letter, a digit or a
// character keys are made of (not a full stop or a colon, which end
// sentences and labels far more often than a key's first part).
func endsInToken(text string) bool {
	if text == "" || !tokenByte(text[len(text)-1]) || strings.IndexByte(".:", text[len(text)-1]) >= 0 {
		return false // a word and a full stop, a colon: prose
	}
	run := len(text) - 1 - strings.LastIndexAny(text, " \t\r\n")
	return run >= minSplitRun
}

// startsWithToken reports whether text starts with splitPart characters
// a key can be made of.
func startsWithToken(text string) bool {
	if len(text) < splitPart {
		return false
	}
	for i := range splitPart {
		if !tokenByte(text[i]) {
			return false
		}
	}
	return true
}

// tokenByte reports whether c can be part of a key: an ASCII letter or
// digit, or one of the separators key formats use.
func tokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("_-+/=:.", c) >= 0
}

// tailOf is the last n bytes of text or fewer (whole characters), its
// trailing spaces taken off: a secret that ends a message is followed by
// none.
func tailOf(text string, n int) string {
	text = strings.TrimRight(text, " \t\r\n")
	if len(text) <= n {
		return text
	}
	cut := len(text) - n
	for cut < len(text) && !utf8.RuneStart(text[cut]) {
		cut++
	}
	return text[cut:]
}
