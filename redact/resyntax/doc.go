// Package resyntax reads what a rule's regular expression needs of a
// text before it runs: how far from a keyword a match can reach (so the
// redactor runs it on windows around the keywords, not on the whole
// text) and the run of one character class every match holds (so texts
// without one are skipped).
package resyntax
