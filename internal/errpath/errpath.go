// Package errpath words errors about files so that each path is printed
// once. The errors of os (os.Open, os.ReadFile, os.Stat, a *os.File's
// methods) are *fs.PathError or *os.LinkError and already read "open
// /the/path: no such file or directory"; wrapping one as "open %s: %w"
// with the same path printed it twice ("open X: open X: …").
package errpath

import (
	"fmt"
	"strings"
)

// Wrap returns err as "op path: err", unless err's message names path
// already (an error of package os, or one worded by recall that names
// it), in which case err is returned as it is. A nil err is nil.
func Wrap(op, path string, err error) error {
	if err == nil {
		return nil
	}
	if path != "" && strings.Contains(err.Error(), path) {
		return err
	}
	if op == "" {
		return fmt.Errorf("%s: %w", path, err)
	}
	return fmt.Errorf("%s %s: %w", op, path, err)
}
