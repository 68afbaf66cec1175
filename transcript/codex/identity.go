package codex

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/maphash"
	"strings"
)

// A row's UUID is its message's identity: the same message read from
// another file must get the same one (a rollout moved to
// archived_sessions/, compressed there, or copied into a fork), and no
// other message may.
//
// The newest Codex versions give each response item an id (msg_…,
// fc_…): that is the identity. Before them a rollout's records have
// none, so one is derived from what the record holds:
//
//   - a tool call: its call_id (unique per call);
//   - a message: the thread it is of, its role and text (event_msg and
//     response_item forms of one message alike, so that when a file has
//     both and the reader keeps both, the committer still drops the
//     second as a copy). The thread is the file's own, or for the lines
//     a fork or subagent copied from its parent (after the parent's
//     session_meta, until its own turn starts) the parent's: the copies
//     key as the parent's own lines do, and the same prompt typed in two
//     sessions ("What model are you?") is two messages;
//   - anything else: its raw payload;
//
// plus how many records of the same class with the same identity came
// before it in the file (its occurrence). The same "yes, go on" typed
// twice is two messages: occurrences 0 and 1. A fork copies its
// parent's records in order, so a copied message has the occurrence it
// had in the parent, and the same UUID.
//
// The line's timestamp is not part of it, though it would set repeats
// apart without a count: Codex stamps a line when it writes it
// (codex-rs/rollout/src/recorder.rs, JsonlWriter::write_rollout_item:
// OffsetDateTime::now_utc()), and a fork writes its copy of the parent's
// history anew, so every copied line has the fork's time.
//
// The occurrence counts are of the whole file, from its first line: a
// read that continues a file replays the lines read before (quickly:
// records that make no row are skipped by their first bytes, see
// head.go), so that a file read in several parts gives each message the
// UUID a read of it whole (its archived, compressed copy) gives.

// maxIdentities bounds the occurrence counts a file keeps (a few
// megabytes): past it, an identity not seen yet counts as its first
// occurrence every time. Real rollouts hold thousands of messages and
// tool calls, not hundreds of thousands.
const maxIdentities = 1 << 18

// identity classes: response items and events count apart, so that the
// k-th event form of a message and its k-th response item form share a
// UUID.
const (
	classItem  = 'i'
	classEvent = 'e'
)

// occurrences counts the identities of a file's records, by a hash of
// each: maphash's, as the counts live only as long as one read (a key
// holds a message's whole text, and FNV's byte at a time over it was a
// tenth of the reader's time).
type occurrences struct {
	seed   maphash.Seed
	counts map[uint64]uint32
}

func newOccurrences() occurrences {
	return occurrences{seed: maphash.MakeSeed(), counts: map[uint64]uint32{}}
}

// next is how many times class and key came before, counting this one.
func (o occurrences) next(class byte, key string) uint32 {
	var h maphash.Hash
	h.SetSeed(o.seed)
	h.WriteByte(class)
	h.WriteString(key)
	k := h.Sum64()
	n, seen := o.counts[k]
	if seen || len(o.counts) < maxIdentities {
		o.counts[k] = n + 1
	}
	return n
}

// uuidOf is the UUID of the n-th occurrence of key: 32 hex digits.
func uuidOf(key string, n uint32) string {
	h := sha256.New()
	h.Write([]byte("codex\x00"))
	h.Write([]byte(key))
	var buf [1 + binary.MaxVarintLen32]byte
	b := append(buf[:0], 0)
	b = binary.AppendUvarint(b, uint64(n))
	h.Write(b)
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:16])
}

// Identity keys, by what the record gives.
func idKey(id string) string                 { return "id\x00" + id }
func callKey(itemType, callID string) string { return "call\x00" + itemType + "\x00" + callID }
func messageKey(thread, role, text string) string {
	return "msg\x00" + strings.ToLower(thread) + "\x00" + role + "\x00" + text
}
func rawKey(recordType string, p []byte) string { return "raw\x00" + recordType + "\x00" + string(p) }
