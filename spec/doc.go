// Package spec holds the normative documents of ledger and the tests that bind them to the
// code through spec/vectors. It has no code of its own.
package spec
