//go:build !race

package codec_test

const raceBuild = false
