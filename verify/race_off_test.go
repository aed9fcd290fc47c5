//go:build !race

package verify

const raceBuild = false
