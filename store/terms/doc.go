// Package terms is recall's term index: beside each run of rows blocks, a
// segment file with the vocabulary of the rows' text, postings (which rows
// hold each token, how often, how often in code) and a row table (session,
// time, type, length). A search finds the tokens that contain a query's
// words by substring search over the vocabulary, so grep semantics hold,
// ranks sessions from postings without touching text, and decompresses
// rows only for the sessions it shows. The rows files stay the canonical
// store: every segment can be rebuilt from them.
//
// The file format is documented in docs/index-format.md.
package terms
