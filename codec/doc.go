// Package codec is the one way ledger turns records into bytes and bytes into
// content addresses.
//
// Records are DAG-CBOR (spec/encoding.md): canonical CBOR with map keys sorted
// length-first then bytewise, definite lengths only, the smallest integer
// encodings, no floats, and tag 42 for links. Decoding is strict: any input
// that is not the one canonical encoding of the value it decodes to is
// rejected, so a record has exactly one byte form and therefore one CID.
package codec
