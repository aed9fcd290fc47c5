package keys

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// createAnonymous writes data to an unnamed file in dir (O_TMPFILE), syncs
// it and links it at path, failing with fs.ErrExist if path exists. Until
// the link the file has no name, so a crash leaves nothing behind. It
// fails otherwise where the kernel or file system has no O_TMPFILE, or
// /proc is not mounted (linking an unnamed file by descriptor without
// /proc needs CAP_DAC_READ_SEARCH); the caller then uses a named file.
func createAnonymous(dir, path string, data []byte) error {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	if err := writeSynced(f, data); err != nil {
		return err
	}
	step("anonymous-written")
	// O_TMPFILE without O_EXCL may be linked; through /proc, linkat
	// follows the descriptor's magic link to the file itself.
	err = unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
	if errors.Is(err, unix.EEXIST) {
		return os.ErrExist
	}
	if err != nil {
		return err
	}
	step("linked")
	return nil
}
