package terms

import (
	"fmt"
	"os"
)

// Refs lists the term-index segment files in dir.
func Refs(dir string) ([]Ref, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read index dir: %w", err)
	}
	var refs []Ref
	for _, e := range entries {
		if r, ok := ParseName(e.Name()); ok {
			refs = append(refs, r)
		}
	}
	return refs, nil
}
