//go:build !linux

package keys

import "errors"

// createAnonymous needs Linux's O_TMPFILE; elsewhere the caller uses a
// named temporary file.
func createAnonymous(dir, path string, data []byte) error {
	return errors.New("no O_TMPFILE")
}
