// Package winlock locks whole files on Windows with LockFileEx, for the
// store's and the local chain's directory locks; Unix systems lock with
// fcntl and flock in those packages themselves. It is empty elsewhere.
package winlock
