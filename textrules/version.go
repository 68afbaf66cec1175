package textrules

// FeatureVersion is the version of the rules in this package. Rows are
// canonical; everything the index computes from them (term segments, block
// records, keys, recall events) records the feature version it was built
// under, and a file built under another is rebuilt from the rows, never
// used for bounds or skipping. Bump it, with one line below, whenever a rule
// here changes what such a file would hold; TestFingerprint fails until
// the bump and its golden fingerprint are committed together.
//
//	1: first recorded: simple case folding, word runes (letters, numbers,
//	   '_'), code spans (fences, one-line inline code), acknowledgement
//	   lists, stop words, recall-event phrases and invocations.
//	2: accent folding (AccentFold: NFD base letters), English word forms
//	   (StemKey: Snowball Porter2 from github.com/kljensen/snowball
//	   v0.10.0, FormPrefix), a longer stop-word list; term segments store
//	   the folds and word forms of their tokens.
//	3: headless runs (IsHeadlessEntrypoint of the rows' entrypoint
//	   column) flagged in the term index's row table; session titles
//	   (rows of type title) listed beside the recall events.
const FeatureVersion = 3
