package benchgen

import (
	"math/rand/v2"
	"time"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const base64Chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// newUUID returns a random version-4 UUID from r.
func newUUID(r *rand.Rand) string {
	hi, lo := r.Uint64(), r.Uint64()
	hi = hi&^0xf000 | 0x4000     // version 4
	lo = lo&^(0xc<<60) | 0x8<<60 // RFC 4122 variant
	return formatUUID(hi, lo)
}

// formatUUID writes the 128 bits hi, lo in the 8-4-4-4-12 form.
func formatUUID(hi, lo uint64) string {
	var b [36]byte
	putHex(b[0:8], hi>>32, 8)
	b[8] = '-'
	putHex(b[9:13], hi>>16, 4)
	b[13] = '-'
	putHex(b[14:18], hi, 4)
	b[18] = '-'
	putHex(b[19:23], lo>>48, 4)
	b[23] = '-'
	putHex(b[24:36], lo, 12)
	return string(b[:])
}

// putHex writes the low n hex digits of v into dst.
func putHex(dst []byte, v uint64, n int) {
	for i := n - 1; i >= 0; i-- {
		dst[i] = hexDigits[v&0xf]
		v >>= 4
	}
}

func randomHex(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = hexDigits[r.IntN(16)]
	}
	return string(b)
}

func randomFrom(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// The id shapes below copy the real ones (msg_01…, toolu_01…, req_011C…).
func newMessageID(r *rand.Rand) string { return "msg_01" + randomFrom(r, base62, 22) }
func newToolUseID(r *rand.Rand) string { return "toolu_01" + randomFrom(r, base62, 22) }
func newRequestID(r *rand.Rand) string { return "req_011C" + randomFrom(r, base62, 20) }

// newAgentID is the current subagent id: "a" and 16 hex digits.
func newAgentID(r *rand.Rand) string { return "a" + randomHex(r, 16) }

// newTaskID is the 9-character id of background tasks and persisted
// tool outputs (b4pmktq7h).
func newTaskID(r *rand.Rand) string {
	return "b" + randomFrom(r, "0123456789abcdefghijklmnopqrstuvwxyz", 8)
}

// newSignature imitates a thinking-block signature: opaque base64.
func newSignature(r *rand.Rand) string {
	return "Ev" + randomFrom(r, base64Chars, 150+r.IntN(350)) + "="
}

// timestampLayout is Claude Code's: ISO 8601, UTC, milliseconds, Z.
const timestampLayout = "2006-01-02T15:04:05.000Z"

func formatTimestamp(t time.Time) string { return t.UTC().Format(timestampLayout) }
