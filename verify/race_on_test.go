//go:build race

package verify

const raceBuild = true
