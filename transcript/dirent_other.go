//go:build !linux

package transcript

import "os"

// eachEntry calls fn for every entry of dir with the open directory's
// descriptor, so fn can stat relative to it. A link is entryLink: the
// caller follows it or not (links.go).
func eachEntry(dir string, fn func(dirfd int, name string, typ entryType)) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	if err != nil {
		return err
	}
	for _, e := range entries {
		typ := entryOther
		switch {
		case e.Type().IsRegular():
			typ = entryFile
		case e.IsDir():
			typ = entryDir
		case special(e.Type()):
			typ = entrySpecial
		case isLink(e.Type()):
			typ = entryLink
		}
		fn(int(d.Fd()), e.Name(), typ)
	}
	return nil
}

// special reports whether a directory entry's type is a FIFO, socket or
// device.
func special(t os.FileMode) bool {
	return t&(os.ModeNamedPipe|os.ModeSocket|os.ModeDevice|os.ModeCharDevice) != 0
}
