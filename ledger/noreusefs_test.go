package ledger_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// noReuseFS is a crashable MemFS whose ReuseForWrite, which Pebble calls
// to recycle a WAL file, creates the new file afresh, as the vfs.FS
// contract allows. MemFS's own (pebble v2.1.7) takes the lock that
// CrashClone takes for writing twice for reading, once inside Rename: a
// CrashClone that arrives between the two waits for the first, and the
// second waits behind it: TestCrashClone hung so in a CI run.
type noReuseFS struct{ *vfs.MemFS }

func (fs noReuseFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	if err := fs.Remove(oldname); err != nil {
		return nil, err
	}
	return fs.Create(newname, category)
}

// TestNoReuseFSWithCrashClone recycles a file over and over while another
// goroutine takes crash clones, as TestCrashClone's store and test do.
// With MemFS's own ReuseForWrite, this deadlocks within the first few
// hundred rounds (checked when noReuseFS was written).
func TestNoReuseFSWithCrashClone(t *testing.T) {
	t.Parallel()
	mem := vfs.NewCrashableMem()
	fs := noReuseFS{mem}
	f, err := fs.Create("0", vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	recycled := make(chan error, 1)
	go func() {
		for i := 0; i < 20000; i++ {
			f, err := fs.ReuseForWrite(fmt.Sprint(i), fmt.Sprint(i+1), vfs.WriteCategoryUnspecified)
			if err != nil {
				recycled <- err
				return
			}
			f.Close()
		}
		recycled <- nil
	}()
	stop := make(chan struct{})
	cloned := make(chan struct{})
	go func() {
		defer close(cloned)
		for {
			select {
			case <-stop:
				return
			default:
				mem.CrashClone(vfs.CrashCloneCfg{})
			}
		}
	}()
	select {
	case err := <-recycled:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("ReuseForWrite and CrashClone deadlocked")
	}
	close(stop)
	<-cloned
}
