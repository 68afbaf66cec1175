// Package keys holds the index's message identities: the keys file's
// fixed-size records (a row key and the generation it came from), the
// Set a run looks copies up in, and the key index, a sorted and paged
// copy of the records from which a run reads only the pages it needs.
package keys
