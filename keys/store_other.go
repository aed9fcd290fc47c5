//go:build !unix

package keys

import "os"

func openNoBlock(path string) (*os.File, error) { return os.Open(path) }

// Without flock, temporary files are not locked, and so never swept: a
// sweep could not tell a crash's leftover from a live writer's file.
func lockFile(*os.File) error   { return nil }
func tryLockFile(*os.File) bool { return false }

// noHardLinks: where link fails on a file system without hard links
// (FAT on Windows), it is with an error this package does not classify;
// it is returned as it is.
func noHardLinks(error) bool { return false }
