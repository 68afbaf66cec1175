package search

import (
	"fmt"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/store/terms"
)

// conversations answers rank.Options.Conversations from the index: every
// row each session holds, matched or not, as its type and length
// (snapshot.Snapshot.SessionShapes reads them from the row tables, or the
// rows without a term index). Whether a search ranked from the term
// index or read every row, it asks the same question of the same index
// and gets the same answer, so both collapse the same sessions. Duplicate
// collapse asks only for sessions whose matched text is alike, which most
// searches have none of; a session asked again (a search's pool grows)
// is not read again. The first error is kept for the search to return.
type conversations struct {
	snap  *snapshot.Snapshot
	known map[string]rank.Conversation
	err   error
}

func newConversations(snap *snapshot.Snapshot) *conversations {
	return &conversations{snap: snap, known: map[string]rank.Conversation{}}
}

// of returns the conversation of each of ids (nil after an error).
func (c *conversations) of(ids []string) []rank.Conversation {
	var missing []string
	for _, id := range ids {
		if _, ok := c.known[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 && c.err == nil {
		shapes, err := c.snap.SessionShapes(missing)
		if err != nil {
			c.err = fmt.Errorf("search: %w", err)
		}
		for _, id := range missing {
			rows := shapes[id]
			conv := make(rank.Conversation, len(rows)) // not nil: known, if empty
			for i, r := range rows {
				conv[i] = rank.MessageShape{Type: terms.TypeName(r.Type), Len: int(r.Len)}
			}
			c.known[id] = conv
		}
	}
	out := make([]rank.Conversation, len(ids))
	for i, id := range ids {
		out[i] = c.known[id]
	}
	return out
}
