//go:build !race

package archive

const poisonRecycled = false
