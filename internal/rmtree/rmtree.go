// Package rmtree removes the temporary trees the commands make (an audit's
// scratch store, an import's partial store) where os.RemoveAll alone may
// fail to.
package rmtree

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// RemoveAll removes path and everything under it, as os.RemoveAll does,
// and nil if path does not exist. Where os.RemoveAll fails, it removes the
// tree again entry by entry by path, deepest first, and returns
// os.RemoveAll's error only if that leaves path in place. On Windows, Go
// 1.26's os.RemoveAll removes each entry relative to its open parent
// directory with a call that Wine 8 does not implement ("Invalid
// function"), where os.Remove by path works.
func RemoveAll(path string) error {
	err := os.RemoveAll(path)
	if err == nil {
		return nil
	}
	removeByPath(path)
	if _, serr := os.Lstat(path); errors.Is(serr, fs.ErrNotExist) {
		return nil
	}
	return err
}

// removeByPath removes what it can of the tree at path, children first.
func removeByPath(path string) {
	info, err := os.Lstat(path)
	if err != nil {
		return
	}
	if info.IsDir() {
		entries, _ := os.ReadDir(path)
		for _, e := range entries {
			removeByPath(filepath.Join(path, e.Name()))
		}
	}
	_ = os.Remove(path)
}
