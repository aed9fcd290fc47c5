//go:build !unix

package keys

import (
	"fmt"
	"os"
	"runtime"
)

// keyFilesSupported refuses key files here. Windows has no permission
// bits, so a key file others may read would be read without a word (its
// ACL is what protects it, and this package does not read ACLs); and a
// file open in a writer cannot be removed or renamed there, so a named
// temporary file holding the secret would be left behind, with no flock to
// tell a sweep a crash's leftover from a live writer's. Verifying ledgers
// and proofs needs no key file.
func keyFilesSupported() error {
	return fmt.Errorf("%w, not on %s", ErrKeyFilesUnsupported, runtime.GOOS)
}

// What follows is never reached (keyFilesSupported refuses first); it
// keeps the package building.

func openNoBlock(path string) (*os.File, error) { return os.Open(path) }

func lockFile(*os.File) error   { return nil }
func tryLockFile(*os.File) bool { return false }

func noHardLinks(error) bool { return false }
