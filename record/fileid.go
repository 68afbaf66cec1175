package record

import (
	"os"

	"golang.org/x/sys/unix"
)

// FileID is what a stat says of a file: enough to tell it changed.
type FileID struct {
	Dev, Ino uint64
	Size     int64
	MtimeNs  int64
}

// StatID stats path into a FileID.
func StatID(path string) (FileID, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return FileID{}, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return FileID{Dev: uint64(st.Dev), Ino: st.Ino, Size: st.Size, MtimeNs: st.Mtim.Nano()}, nil
}
