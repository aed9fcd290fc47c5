// Checks spec/vectors/ledger.json and spec/vectors/signatures.json with independent JavaScript
// implementations: @ipld/dag-cbor (bytes, CIDs), @noble/hashes (RFC 6962 Merkle roots) and
// @scure/sr25519 (schnorrkel signatures with the "substrate" context, as Polkadot and Bittensor
// sign). Nothing here shares code with the Go implementation.
import { readFileSync } from 'node:fs'
import * as dagCbor from '@ipld/dag-cbor'
import { CID } from 'multiformats/cid'
import { sha256 as mfSha256 } from 'multiformats/hashes/sha2'
import { sha256 } from '@noble/hashes/sha2.js'
import * as sr25519 from '@scure/sr25519'

const load = (name) => JSON.parse(readFileSync(new URL(`../vectors/${name}`, import.meta.url)))
const hex = (b) => Buffer.from(b).toString('hex')
const unhex = (s) => new Uint8Array(Buffer.from(s, 'hex'))
let ok = 0, bad = 0
const check = (cond, what) => { if (cond) ok++; else { bad++; console.error('FAIL', what) } }

async function cidOf (bytes) { return CID.create(1, dagCbor.code, await mfSha256.digest(bytes)).toString() }

// RFC 6962: leaf = SHA-256(0x00 || data), node = SHA-256(0x01 || left || right), split at the
// largest power of two below n.
const leafHash = (data) => sha256(new Uint8Array([0, ...data]))
function root (leaves) {
  if (leaves.length === 1) return leaves[0]
  let k = 1
  while (k * 2 < leaves.length) k *= 2
  return sha256(new Uint8Array([1, ...root(leaves.slice(0, k)), ...root(leaves.slice(k))]))
}

const ledger = load('ledger.json')
const leaves = []
for (const [i, t] of ledger.transcripts.entries()) {
  const bytes = unhex(t.hex)
  check(hex(dagCbor.encode(dagCbor.decode(bytes))) === t.hex, `transcript ${i} re-encodes identically`)
  check(await cidOf(bytes) === t.cid, `transcript ${i} CID`)
  const lh = leafHash(CID.parse(t.cid).bytes)
  check(hex(lh) === t.leaf_hash, `transcript ${i} leaf hash over its binary CID`)
  leaves.push(lh)
}
for (const [i, d] of ledger.decisions.entries()) {
  check(await cidOf(unhex(d.hex)) === d.cid, `decision ${i} CID`)
}
const pub = unhex(ledger.validator.public_key)
for (const [i, b] of ledger.blocks.entries()) {
  const bytes = unhex(b.hex)
  const block = dagCbor.decode(bytes)
  check(hex(dagCbor.encode(block)) === b.hex, `block ${i} re-encodes identically`)
  check(await cidOf(bytes) === b.cid, `block ${i} CID`)
  const sig = block.sig
  delete block.sig
  const header = dagCbor.encode(block)
  check(hex(header) === b.header_hex, `block ${i} header is the block without sig`)
  const msg = new Uint8Array([...new TextEncoder().encode('affine-ledger/block/v1'), 0, ...header])
  check(hex(msg) === b.signing_message_hex, `block ${i} signing message`)
  check(sr25519.verify(msg, sig, pub), `block ${i} signature verifies under //Alice`)
  const flipped = new Uint8Array(msg); flipped[flipped.length - 1] ^= 1
  check(!sr25519.verify(flipped, sig, pub), `block ${i} signature fails for altered bytes`)
  check(hex(root(leaves.slice(0, b.checkpoint.size))) === b.checkpoint.root, `block ${i} checkpoint root`)
}

const sigs = load('signatures.json')
for (const k of sigs.keys) {
  if (!k.secret_seed) continue
  const secret = sr25519.secretFromSeed(unhex(k.secret_seed))
  check(hex(sr25519.getPublicKey(secret)) === k.public_key, `key "${k.name}" public key from its seed`)
}
for (const s of sigs.signatures) {
  const valid = sr25519.verify(unhex(s.message), unhex(s.signature), unhex(s.public_key))
  check(valid === s.valid, `signature "${s.name}" is ${s.valid ? 'valid' : 'invalid'}`)
}
// And the other way: a signature made here verifies in the Go vectors' terms (same context).
const seed = unhex(sigs.keys.find((k) => k.secret_seed).secret_seed)
const secret = sr25519.secretFromSeed(seed)
const m = new TextEncoder().encode('made by @scure/sr25519')
check(sr25519.verify(m, sr25519.sign(secret, m), sr25519.getPublicKey(secret)), 'JS sign/verify round trip')

console.log(`ledger and signature interop: ${ok} checks ok, ${bad} failing`)
process.exit(bad ? 1 : 0)
