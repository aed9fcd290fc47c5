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

// The keys of a transcript (ledger.md, "Transcript"): format 1 has every key but `seed`.
const keysV1 = ['v', 'env', 'duel', 'error', 'miner', 'reason', 'reward', 'usage', 'attempts',
  'challenge', 'validator', 'invocation', 'latency_ms', 'started_ms', 'env_version', 'finished_ms',
  'http_status', 'conversation', 'turn_rewards']
const keysV2 = [...keysV1, 'seed']
const sameKeys = (obj, keys) => Object.keys(obj).length === keys.length && keys.every((k) => k in obj)

// challenge-id.md: seed = SHA-256("affine-ledger/challenge-seed/v1" || 0x00 || anchor hash ||
// validator || u8 len(env) || env || BE16 version || BE64 counter); the binary challenge ID is
// u8 len(env) || env || BE16 version || seed.
function seedDerives (rec) {
  const id = rec.challenge
  const n = id[0]
  const tail = new Uint8Array(8)
  new DataView(tail.buffer).setBigUint64(0, BigInt(rec.seed.counter))
  const msg = new Uint8Array([...new TextEncoder().encode('affine-ledger/challenge-seed/v1'), 0,
    ...rec.seed.anchor.hash, ...rec.validator, ...id.slice(0, 3 + n), ...tail])
  return hex(sha256(msg)) === hex(id.slice(3 + n))
}

const ledger = load('ledger.json')
const leaves = []
const records = []
for (const [i, t] of ledger.transcripts.entries()) {
  const bytes = unhex(t.hex)
  const rec = dagCbor.decode(bytes)
  records.push(rec)
  check(hex(dagCbor.encode(rec)) === t.hex, `transcript ${i} re-encodes identically`)
  check(await cidOf(bytes) === t.cid, `transcript ${i} CID`)
  check(rec.v === 2 && sameKeys(rec, keysV2), `transcript ${i} is format 2 with its 20 keys`)
  check(sameKeys(rec.seed, ['anchor', 'counter']) && sameKeys(rec.seed.anchor, ['number', 'hash']), `transcript ${i} seed keys`)
  check(seedDerives(rec), `transcript ${i} seed derives its challenge`)
  const altered = { ...rec, seed: { ...rec.seed, counter: rec.seed.counter + 1 } }
  check(!seedDerives(altered), `transcript ${i} seed with another counter does not`)
  const lh = leafHash(CID.parse(t.cid).bytes)
  check(hex(lh) === t.leaf_hash, `transcript ${i} leaf hash over its binary CID`)
  leaves.push(lh)
}
// Format 1 pins records written before the seed key: the same transcripts without it.
for (const [i, t] of ledger.transcripts_v1.entries()) {
  const bytes = unhex(t.hex)
  const rec = dagCbor.decode(bytes)
  check(hex(dagCbor.encode(rec)) === t.hex, `format-1 transcript ${i} re-encodes identically`)
  check(await cidOf(bytes) === t.cid, `format-1 transcript ${i} CID`)
  check(hex(leafHash(CID.parse(t.cid).bytes)) === t.leaf_hash, `format-1 transcript ${i} leaf hash`)
  check(rec.v === 1 && sameKeys(rec, keysV1), `format-1 transcript ${i} has the 19 keys of format 1`)
  const { v, seed, ...rest } = records[i]
  check(hex(dagCbor.encode({ ...rest, v: 1 })) === t.hex, `format-1 transcript ${i} is format-2 transcript ${i} without its seed`)
}
for (const [i, d] of ledger.decisions.entries()) {
  check(await cidOf(unhex(d.hex)) === d.cid, `decision ${i} CID`)
}
const pub = unhex(ledger.validator.public_key)
const blockKeysV1 = ['v', 'validator', 'height', 'prev', 'time_ms', 'anchor', 'transcripts', 'decisions', 'checkpoint', 'sig']
// Each list is a chain: format 2 names its network (net) and signs under block/v2; format 1,
// which ledgers before it hold, names none and signs under block/v1.
for (const [format, list] of [[2, ledger.blocks], [1, ledger.blocks_v1]]) {
  check(list.length === 2, `two blocks of format ${format}`)
  for (const [i, b] of list.entries()) {
    const what = `format-${format} block ${i}`
    const bytes = unhex(b.hex)
    const block = dagCbor.decode(bytes)
    check(hex(dagCbor.encode(block)) === b.hex, `${what} re-encodes identically`)
    check(await cidOf(bytes) === b.cid, `${what} CID`)
    check(block.v === format, `${what} has v = ${format}`)
    if (format === 2) {
      check(sameKeys(block, [...blockKeysV1, 'net']), `${what} has the 11 keys of format 2`)
      check(hex(block.net.genesis) === ledger.network.genesis && block.net.netuid === ledger.network.netuid, `${what} names the vectors' network`)
    } else {
      check(sameKeys(block, blockKeysV1), `${what} has the 10 keys of format 1`)
    }
    if (i > 0) check(block.prev.toString() === list[i - 1].cid, `${what} links the block before it`)
    const sig = block.sig
    delete block.sig
    const header = dagCbor.encode(block)
    check(hex(header) === b.header_hex, `${what} header is the block without sig`)
    const msg = new Uint8Array([...new TextEncoder().encode(`affine-ledger/block/v${format}`), 0, ...header])
    check(hex(msg) === b.signing_message_hex, `${what} signing message`)
    check(sr25519.verify(msg, sig, pub), `${what} signature verifies under //Alice`)
    const flipped = new Uint8Array(msg); flipped[flipped.length - 1] ^= 1
    check(!sr25519.verify(flipped, sig, pub), `${what} signature fails for altered bytes`)
    check(hex(root(leaves.slice(0, b.checkpoint.size))) === b.checkpoint.root, `${what} checkpoint root`)
    // verify.md, "Seeds": a seed's anchor is one this block or an earlier one of the chain records.
    const recorded = list.slice(0, i + 1).map((x) => dagCbor.decode(unhex(x.hex)).anchor)
    for (const l of block.transcripts) {
      const j = ledger.transcripts.findIndex((t) => t.cid === l.toString())
      const a = records[j].seed.anchor
      check(j >= 0 && recorded.some((r) => r.number === a.number && hex(r.hash) === hex(a.hash)), `${what} transcript ${j} seed anchor is recorded`)
    }
  }
}
// The same header under the other format's domain is another message: a signature binds its format.
{
  const block = dagCbor.decode(unhex(ledger.blocks[0].hex))
  const sig = block.sig
  delete block.sig
  const other = new Uint8Array([...new TextEncoder().encode('affine-ledger/block/v1'), 0, ...dagCbor.encode(block)])
  check(!sr25519.verify(other, sig, pub), 'a format-2 signature does not verify under the format-1 domain')
}

// ledger.md, "Fork proof": what a proof proves (equivocation for format 2, nothing for format 1,
// whose blocks name no network), or an error naming the rule it breaks.
const proofKeys = ['v', 'validator', 'height', 'a', 'b']
async function checkForkProof (bytes) {
  const p = dagCbor.decode(bytes)
  if (hex(dagCbor.encode(p)) !== hex(bytes)) throw new Error('not canonical')
  if (!sameKeys(p, proofKeys)) throw new Error('keys')
  if (p.v !== 1 && p.v !== 2) throw new Error(`format ${p.v}`)
  const cids = await Promise.all([p.a, p.b].map(async (raw) => CID.create(1, dagCbor.code, await mfSha256.digest(raw)).bytes))
  if (Buffer.compare(cids[0], cids[1]) >= 0) throw new Error('blocks not in CID order, or one block twice')
  const blocks = []
  for (const [i, raw] of [p.a, p.b].entries()) {
    const blk = dagCbor.decode(raw)
    if (hex(dagCbor.encode(blk)) !== hex(raw)) throw new Error(`block ${i} not canonical`)
    if (blk.v !== p.v) throw new Error(`block ${i} is of format ${blk.v}, the proof of format ${p.v}`)
    if (!sameKeys(blk, p.v === 2 ? [...blockKeysV1, 'net'] : blockKeysV1)) throw new Error(`block ${i} keys`)
    if (hex(blk.validator) !== hex(p.validator) || blk.height !== p.height) throw new Error(`block ${i} is another validator's or height's`)
    const { sig, ...header } = blk
    const msg = new Uint8Array([...new TextEncoder().encode(`affine-ledger/block/v${blk.v}`), 0, ...dagCbor.encode(header)])
    let verifies = false
    try { verifies = sr25519.verify(msg, sig, blk.validator) } catch { /* not a signature's encoding at all */ }
    if (!verifies) throw new Error(`block ${i} signature`)
    blocks.push(blk)
  }
  if (p.v === 2 && (hex(blocks[0].net.genesis) !== hex(blocks[1].net.genesis) || blocks[0].net.netuid !== blocks[1].net.netuid)) {
    throw new Error('blocks of two networks')
  }
  return { proves: p.v === 2 }
}
const failsWith = async (bytes, what) => {
  try { await checkForkProof(bytes) } catch (e) { return e.message.includes(what) }
  return false
}
check(ledger.fork_proofs.length === 2 && ledger.fork_proofs.map((f) => f.v).join() === '2,1', 'a fork proof of format 2 and one of format 1')
for (const fp of ledger.fork_proofs) {
  const what = `format-${fp.v} fork proof`
  const chain = fp.v === 2 ? ledger.blocks : ledger.blocks_v1
  const other = fp.other_block
  const bytes = unhex(fp.hex)
  check(await cidOf(bytes) === fp.cid, `${what} CID`)
  check(await cidOf(unhex(other.hex)) === other.cid, `${what} other block CID`)
  const ob = dagCbor.decode(unhex(other.hex))
  const { sig, ...header } = ob
  check(hex(dagCbor.encode(header)) === other.header_hex, `${what} other block header is the block without sig`)
  check(hex(new Uint8Array([...new TextEncoder().encode(`affine-ledger/block/v${fp.v}`), 0, ...dagCbor.encode(header)])) === other.signing_message_hex, `${what} other block signing message`)
  const p = dagCbor.decode(bytes)
  check([hex(p.a), hex(p.b)].sort().join() === [chain[0].hex, other.hex].sort().join(), `${what} holds block 0 of its format's chain and the other block`)
  let got
  try { got = await checkForkProof(bytes) } catch (e) { check(false, `${what} is valid: ${e.message}`) }
  check(got !== undefined && got.proves === fp.proves_equivocation && fp.proves_equivocation === (fp.v === 2), `${what} ${fp.v === 2 ? 'proves' : 'does not prove'} equivocation`)
  // Each rule, broken once, fails.
  const enc = (changes) => dagCbor.encode({ ...p, ...changes })
  check(await failsWith(enc({ a: p.b, b: p.a }), 'CID order'), `${what} with its blocks swapped fails`)
  check(await failsWith(enc({ b: p.a }), 'CID order'), `${what} of one block twice fails`)
  check(await failsWith(enc({ v: 3 - fp.v }), 'of format'), `${what} relabelled format ${3 - fp.v} fails`)
  check(await failsWith(enc({ height: p.height + 1 }), 'height'), `${what} naming another height fails`)
  const forged = dagCbor.decode(p.b)
  forged.sig = new Uint8Array(forged.sig); forged.sig[0] ^= 1
  const fb = dagCbor.encode(forged)
  const [x, y] = Buffer.compare(CID.create(1, dagCbor.code, await mfSha256.digest(p.a)).bytes, CID.create(1, dagCbor.code, await mfSha256.digest(fb)).bytes) < 0 ? [p.a, fb] : [fb, p.a]
  check(await failsWith(enc({ a: x, b: y }), 'signature'), `${what} with an altered signature fails`)
}

// ledger.json "reject": records that break one rule each. The checks below are written from
// spec/ledger.md and name the rule they find broken, which must be the one the vector names.
const utf8Len = (s) => Buffer.byteLength(s, 'utf8')
const isZero = (b) => b.every((x) => x === 0)
const canonical = (bytes) => {
  const value = dagCbor.decode(bytes)
  if (hex(dagCbor.encode(value)) !== hex(bytes)) throw new Error('not canonical')
  return value
}
function transcriptRule (bytes) {
  const t = canonical(bytes)
  if (t.v !== 1 && t.v !== 2) return 'format'
  const own = t.v === 2 ? keysV2 : keysV1
  if (!sameKeys(t, own)) return sameKeys(t, t.v === 2 ? keysV1 : keysV2) ? 'layout' : 'keys'
  const u = (x, bits) => Number.isInteger(x) && x >= 0 && x < 2 ** bits
  if (!u(t.env_version, 16) || !u(t.http_status, 16) || !u(t.miner.uid, 16) || !u(t.attempts, 32)) return 'range'
  const id = t.challenge, n = id[0]
  if (new TextDecoder().decode(id.slice(1, 1 + n)) !== t.env || ((id[1 + n] << 8) | id[2 + n]) !== t.env_version) return 'env'
  if (isZero(t.validator)) return 'validator zero'
  if (t.v === 2 && !seedDerives(t)) return 'seed'
  if (isZero(t.miner.hotkey)) return 'miner hotkey zero'
  if (isZero(t.invocation)) return 'invocation zero'
  if ([t.reason, t.error, t.miner.model, t.miner.revision, t.miner.endpoint].some((x) => utf8Len(x) > 4096)) return 'text length'
  if (t.miner.model_hash.length > 64) return 'model hash length'
  if (t.conversation.length > 256) return 'messages'
  if (t.conversation.some((m) => !/^[a-z_]{1,16}$/.test(m.role))) return 'role'
  if (t.turn_rewards.length > 256) return 'turn rewards'
  if (t.started_ms < 0 || t.finished_ms < t.started_ms) return 'times'
  return null
}
const address = (l) => l instanceof CID && l.version === 1 && l.code === dagCbor.code && l.multihash.code === 0x12 && l.multihash.size === 32
function blockRule (bytes) {
  const b = canonical(bytes)
  if (b.v !== 1 && b.v !== 2) return { rule: 'format' }
  const v2Keys = [...blockKeysV1, 'net']
  if (!sameKeys(b, b.v === 2 ? v2Keys : blockKeysV1)) return { rule: sameKeys(b, b.v === 2 ? blockKeysV1 : v2Keys) ? 'layout' : 'keys' }
  if (isZero(b.validator)) return { rule: 'validator zero' }
  if (b.v === 2 && isZero(b.net.genesis)) return { rule: 'genesis zero' }
  if ((b.height === 0) !== (b.prev === null)) return { rule: 'prev' }
  if (b.time_ms < 0) return { rule: 'time' }
  const links = [...b.transcripts, ...b.decisions]
  if (!links.every(address) || (b.prev !== null && !address(b.prev))) return { rule: 'link address' }
  if (new Set(links.map(String)).size !== links.length) return { rule: 'links twice' }
  if (b.checkpoint.size < b.transcripts.length || (b.height === 0 && b.checkpoint.size !== b.transcripts.length)) return { rule: 'checkpoint size' }
  const { sig, ...header } = b
  const msg = new Uint8Array([...new TextEncoder().encode(`affine-ledger/block/v${b.v}`), 0, ...dagCbor.encode(header)])
  if (!sr25519.verify(msg, sig, b.validator)) return { rule: 'signature' }
  return { rule: null, block: b }
}
// The next block after blocks[0] (validity of a chain, rules 4, 5 and 9).
function nextBlockRule (bytes) {
  const { rule, block: b } = blockRule(bytes)
  if (rule) return rule
  const parent = dagCbor.decode(unhex(ledger.blocks[0].hex))
  if (b.height !== 1 || String(b.prev) !== ledger.blocks[0].cid || b.time_ms < parent.time_ms || b.anchor.number < parent.anchor.number) return 'parent'
  const log = [...leaves.slice(0, parent.checkpoint.size), ...b.transcripts.map((l) => leafHash(l.bytes))]
  if (b.checkpoint.size !== log.length || hex(root(log)) !== hex(b.checkpoint.root)) return 'checkpoint'
  return null
}
async function forkProofRule (bytes) {
  try { await checkForkProof(bytes) } catch (e) {
    const m = e.message
    if (/^format \d+$/.test(m)) return 'format'
    if (m.includes('CID order')) return 'CID order'
    if (m.includes('of format')) return 'block format'
    if (m.includes("another validator's or height's")) return 'validator or height'
    if (m.includes('two networks')) return 'two networks'
    if (m.includes('signature')) return 'signature'
    return m
  }
  return null
}
check(ledger.reject.length > 0, 'ledger.json has reject cases')
for (const r of ledger.reject) {
  const bytes = unhex(r.hex)
  let got
  try {
    switch (r.kind) {
      case 'transcript': got = transcriptRule(bytes); break
      case 'block': got = blockRule(bytes).rule; break
      case 'block after blocks[0]': got = nextBlockRule(bytes); break
      case 'fork proof': got = await forkProofRule(bytes); break
      default: got = `unknown kind ${r.kind}`
    }
  } catch (e) { got = `error: ${e.message}` }
  check(got === r.rule, `reject ${r.kind} "${r.name}": the rule found here is ${got === null ? 'none (valid)' : `"${got}"`}, the vector's "${r.rule}"`)
}
// The checks pass the valid vectors, or refusing the rejects would prove nothing.
for (const t of ledger.transcripts) check(transcriptRule(unhex(t.hex)) === null, 'valid transcript passes the reject checks')
for (const t of ledger.transcripts_v1) check(transcriptRule(unhex(t.hex)) === null, 'valid format-1 transcript passes the reject checks')
for (const b of [...ledger.blocks, ...ledger.blocks_v1]) check(blockRule(unhex(b.hex)).rule === null, 'valid block passes the reject checks')
check(nextBlockRule(unhex(ledger.blocks[1].hex)) === null, 'blocks[1] passes as the block after blocks[0]')

// ledger.md, Transcript, reason: a reason past 4096 bytes is recorded as its longest prefix of at
// most 4093 bytes ending on a UTF-8 character boundary, then "...".
function recordedReason (reason) {
  const b = Buffer.from(reason, 'utf8')
  if (b.length <= 4096) return reason
  let n = 4093
  while (n > 0 && (b[n] & 0xc0) === 0x80) n--
  return b.subarray(0, n).toString('utf8') + '...'
}
check(ledger.reason_cuts.length > 0, 'ledger.json has reason cuts')
for (const c of ledger.reason_cuts) {
  const reason = c.fill.repeat(c.repeat) + c.tail
  const got = recordedReason(reason)
  check(utf8Len(reason) === c.reason_bytes && utf8Len(got) === c.recorded_bytes && got.endsWith(c.recorded_tail) &&
    hex(sha256(new TextEncoder().encode(got))) === c.recorded_sha256, `reason cut "${c.name}"`)
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
