package store

import (
	"errors"
	"fmt"

	"github.com/recall-dev/recall/internal/problem"
)

// The problems below are damage the store finds, each with the run that
// mends it; the front ends word the remedy (package problem).

// blocksProblem is a block records file that does not read: the next
// index run rebuilds it from the rows.
func blocksProblem(err error) error {
	return problem.Problem{Err: fmt.Errorf("%w: %w", errBlocksDamaged, err), Remedy: problem.Index, Mends: "rebuilds them from the rows"}
}

// errKeysDamaged is a keys file that fails its checksum: the run goes on
// without the identities it lost.
var errKeysDamaged = errors.New("the keys file (message identities) is damaged: copies of indexed messages in forks may be indexed again")
