package store

import (
	"errors"
)

// The problems below are damage the store finds, each with the run that
// mends it; the front ends word the remedy (package problem).

// errKeysDamaged is a keys file that fails its checksum: the run goes on
// without the identities it lost.
var errKeysDamaged = errors.New("the keys file (message identities) is damaged: copies of indexed messages in forks may be indexed again")
