package transcript

import (
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
