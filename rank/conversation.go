package rank

import (
	"fmt"
	"slices"
)

// Whole conversations, the second test of duplicate collapse.
//
// Two sessions whose matched text is alike (dedup.go) are one session
// only if their conversations are alike as a whole: a fork or resumed
// copy under new message ids, or a transcript copied under another
// session id, repeats every message of the original. Matched text alone
// cannot tell that: when the only message a query matches in two
// sessions is the same long pasted block (an assignment, a spec, a log),
// their matched text is identical, yet the sessions around it are about
// different work. So every message of both sessions is compared, matched
// or not, and most of each must have a counterpart in the other.
//
// A message is compared by its type and the length of its text in bytes,
// which the term index's row table holds for every row: the comparison
// costs no decompression, and only pairs whose matched text is already
// alike are compared (the matched text itself was compared word for word
// by the first test). Two messages of different sessions rarely have the
// same type and exactly the same length by chance; a copy's messages
// always do, and an edited message of a copy only loses its own
// counterpart.

const (
	// sameShare is how many of the messages of the longer of two
	// sessions must have a counterpart of the same type and length in
	// the other, at least, for them to be one session: three quarters.
	// A resumed copy adds a message or a few (a copy of six messages and
	// one more is 6 of 7), a copy with a few edited messages loses only
	// those (17 of 20), while two sessions that share a pasted block
	// share that one message and whatever few coincide by chance.
	sameShare = 0.75
	// minSameMessages is the fewest messages two sessions must have in
	// common: one shared message, however long (a paste), is never
	// enough, whatever else the sessions hold.
	minSameMessages = 2
)

// MessageShape is one message of a whole conversation as duplicate
// collapse compares it: its type (as Message.Type) and the length of
// its text in bytes.
type MessageShape struct {
	Type string
	Len  int
}

// Conversation is every message a session holds, matched or not, in
// any order. Title and subagent rows are left out (typeCode).
type Conversation []MessageShape

// shapes is a conversation as compared: a sorted list of shape keys,
// repeats kept.
type shapes []uint64

// shapeKey packs a message's type and length into one comparable value.
func shapeKey(typ string, n int) uint64 {
	return uint64(typeCode(typ))<<32 | min(uint64(max(n, 0)), 1<<32-1)
}

// typeCode numbers the message types for shapeKey; 0 is a type left
// out: a title is not a message, and a subagent's rows are not the
// conversation (a resumed copy does not carry its original's subagent
// transcripts, and a subagent's work can outweigh the conversation it
// was asked from many times over).
func typeCode(typ string) uint8 {
	switch typ {
	case typeTitle, typeAgent:
		return 0
	case typeUser:
		return 1
	case typeAssistant:
		return 2
	case typeTool:
		return 3
	}
	return 4
}

// shapesOf returns c's sorted shape keys.
func shapesOf(c Conversation) shapes {
	out := make(shapes, 0, len(c))
	for _, m := range c {
		if typeCode(m.Type) != 0 {
			out = append(out, shapeKey(m.Type, m.Len))
		}
	}
	slices.Sort(out)
	return out
}

// matchedShapes returns the shapes of a session's matched messages: what
// stands for its conversation when the whole one is not known.
func matchedShapes(s *Session) shapes {
	out := make(shapes, 0, len(s.Messages))
	for i := range s.Messages {
		if m := &s.Messages[i]; typeCode(m.Type) != 0 {
			out = append(out, shapeKey(m.Type, len(m.Text)))
		}
	}
	slices.Sort(out)
	return out
}

// conversationsOf returns the shapes of the conversation of every
// session of need (indices into sessions), asking fetch for them all in
// one call when it is set; a session fetch does not know is represented
// by its matched messages.
func conversationsOf(sessions []Session, need []int, fetch func(ids []string) []Conversation) []shapes {
	out := make([]shapes, len(sessions))
	var whole []Conversation
	if fetch != nil {
		ids := make([]string, len(need))
		for k, i := range need {
			ids[k] = sessions[i].ID
		}
		whole = fetch(ids)
	}
	for k, i := range need {
		if k < len(whole) && whole[k] != nil {
			out[i] = shapesOf(whole[k])
		} else {
			out[i] = matchedShapes(&sessions[i])
		}
	}
	return out
}

// sameness is how two conversations compare: same of their messages
// correspond, of being the longer one's count.
type sameness struct {
	same, of   int
	aLen, bLen int
}

// compareConversations counts the messages of a that have a counterpart
// in b (each counterpart used once).
func compareConversations(a, b shapes) sameness {
	v := sameness{of: max(len(a), len(b)), aLen: len(a), bLen: len(b)}
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			v.same++
			i++
			j++
		}
	}
	return v
}

// oneSession reports whether the two conversations are one session's.
func (v sameness) oneSession() bool {
	return v.same >= minSameMessages && float64(v.same) >= sameShare*float64(v.of)
}

// String says why two sessions were collapsed, as --explain shows it:
// "18 of 19 messages the same (a resumed copy)".
func (v sameness) String() string {
	kind := "an edited copy"
	switch {
	case v.same == v.aLen && v.same == v.bLen:
		kind = "a copy"
	case v.same == min(v.aLen, v.bLen):
		kind = "a resumed copy"
	}
	return fmt.Sprintf("%d of %d messages the same (%s)", v.same, v.of, kind)
}

// collapsedFactor is the line --explain shows in the breakdown of a
// session that absorbed another: it changes nothing in the score (its
// value is 1), and its note names the absorbed session and says why.
func collapsedFactor(id, why string) Factor {
	short := id
	if len(short) > 7 {
		short = short[:7]
	}
	return Factor{Name: "collapsed", Value: 1, Note: short + ": " + why}
}
