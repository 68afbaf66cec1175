// Package rank orders matched sessions by how well they answer a query.
//
// The classic tool ranked sessions by match count, so ten passing mentions
// of "chrome" beat two sessions that built something with Chrome DevTools.
// This package scores the quality of each match instead, then ranks
// sessions by their best messages with diminishing returns.
//
// # Message score
//
// A matched message scores
//
//	relevance × type × coverage × proximity × code
//
// relevance is BM25 (as Lucene ships it): each query term contributes its
// rarity across the index (IDF) times a term-frequency part that saturates
// (the fifth hit adds little over the fourth) and shrinks as the message
// grows longer than average. BM25's length normalisation is what makes a
// single passing mention in a long message weigh little: one hit in a
// message five times the average length scores less than two fifths of one
// hit in an average message. Assistant one-liners ("I'll open Chrome") are
// narration and get no short-message bonus in return, unless they hold
// more of the query: a short reply holding every query word ("Model ID
// je gemini-3.1-pro-preview") is an answer and keeps the whole bonus.
//
// The other factors are multipliers of at least 1 except type, each capped,
// and each derived from the others in message.go so that their relative
// size is deliberate:
//
//   - type: user prompts state what a session is about in the user's own
//     words and weigh more; subagent rows weigh less; tool rows ("Edit:
//     /src/pricing.ts") weigh like assistant text, because BM25 already
//     rewards them for being short.
//   - coverage: a message holding every query word is worth more than one
//     repeating a single word.
//   - proximity: two different query words side by side are likely about
//     one thing; the bonus fades with the byte gap between them.
//   - code: matches inside ``` fences or inline `code` point at technical
//     substance.
//
// Acknowledgements ("ok thanks", "I'll help with that") score zero whatever
// they contain.
//
// # Session score
//
// A session scores
//
//	best messages × coverage × recency × project
//
// The best messages are combined passage first: the best message and the
// matched messages right before and after it in its transcript (a prompt
// and its reply) as s1 + s2/2 + s3/4, every other message as such a series
// at a quarter; never a sum or a count, so a session cannot climb by
// repeating itself (its total is less than two and a quarter times its best
// message), and a long session's scattered mentions of the words add at
// most half its best message to it: a session is judged by its best
// passage, not by how much of it mentions the query. Coverage rewards
// sessions that match more of the query's distinct words anywhere. Recency
// is a tie-breaker (a factor between 0.9 and 1) so an old, better match
// still wins, and the current project gets a boost larger than the whole
// recency range. When the query names a time ("last week", "on March 3"), a
// session with a match then gains as much as the current project, twice
// that for a named day.
//
// # Duplicates
//
// A resumed copy under new message ids, or a transcript copied under
// another session id, repeats a session: Rank collapses it into the best
// ranked one. Two tests decide. The matched text of both must be alike
// (see dedup.go): sessions are sketched with one-permutation MinHash over
// word 3-shingles, candidates come from LSH banding, and every candidate
// pair is confirmed with the exact Jaccard similarity, so the sketch only
// decides which pairs are worth checking. Then the whole conversations
// must be one (see conversation.go): most messages of both sessions,
// matched or not (subagent rows aside), have a counterpart of the same
// type and length in the other. Matched text alone would merge two sessions whose only match is
// the same long pasted block; one shared message is never enough. The
// session kept lists the others in Similar, and why in SimilarWhy and a
// "collapsed" factor.
//
// Every factor is reported as a Factor, so --explain can print the
// breakdown that produced an order.
package rank
