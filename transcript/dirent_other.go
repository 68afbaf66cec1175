//go:build !linux

package transcript

import "os"

// eachEntry calls fn for every entry of dir with the open directory's
// descriptor, so fn can stat relative to it. Links are neither files nor
// folders here: they are not followed.
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
		}
		fn(int(d.Fd()), e.Name(), typ)
	}
	return nil
}
