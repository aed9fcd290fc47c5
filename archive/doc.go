// Package archive moves whole ledgers in and out of a store as CARv1 files
// (spec/verify.md#archive): Export writes every chain, block by block with
// the transcripts and decisions each links right after it, then every fork
// proof, with the chains' head blocks as the roots; Reader streams such a
// file back section by section; Import loads one into a store through the
// store's own checks (Store.Put), trusting nothing in the file.
//
// The fixed order is what lets a verifier and an importer read an archive
// of any size with flat memory: everything a block needs arrives right
// after it.
package archive
