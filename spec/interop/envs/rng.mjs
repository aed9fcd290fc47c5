// spec/randomness.md and spec/challenge-id.md, from their text alone: the SHA-256 stream, its
// draws, sub-streams, challenge IDs in text and binary form, and the seed of a drawn challenge.
import { sha256 } from '@noble/hashes/sha2.js'

const utf8 = (s) => new TextEncoder().encode(s)
const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let o = 0
  for (const p of parts) { out.set(p, o); o += p.length }
  return out
}
const be = (v, bytes) => {
  const out = new Uint8Array(bytes)
  let x = BigInt(v)
  for (let i = bytes - 1; i >= 0; i--) { out[i] = Number(x & 0xffn); x >>= 8n }
  return out
}
export const hex = (b) => Buffer.from(b).toString('hex')
export const unhex = (s) => new Uint8Array(Buffer.from(s, 'hex'))

// derive(seed, label) = SHA-256(seed || UTF-8(label))
export const derive = (seed, label) => sha256(concat(seed, utf8(label)))

const TWO64 = 1n << 64n

// A stream reads block(i) = SHA-256(seed || BE64(i)) eight bytes at a time. Draws that return
// small integers return Numbers; uniform takes and returns BigInt so that n may exceed 2^53.
export class Stream {
  constructor (seed) {
    if (seed.length !== 32) throw new Error(`stream: seed is ${seed.length} bytes, want 32`)
    this.seed = seed
    this.block = 0n
    this.buf = new Uint8Array(0)
    this.off = 0
  }

  u64 () {
    if (this.off === this.buf.length) {
      this.buf = sha256(concat(this.seed, be(this.block, 8)))
      this.block++
      this.off = 0
    }
    let x = 0n
    for (let i = 0; i < 8; i++) x = (x << 8n) | BigInt(this.buf[this.off + i])
    this.off += 8
    return x
  }

  uniformBig (n) {
    if (n < 1n) throw new Error(`uniform: n = ${n} < 1`)
    const t = (TWO64 - n) % n
    for (;;) {
      const x = this.u64()
      if (x >= t) return x % n
    }
  }

  uniform (n) { return Number(this.uniformBig(BigInt(n))) }
  range (lo, hi) {
    if (lo > hi) throw new Error(`range: lo ${lo} > hi ${hi}`)
    return lo + this.uniform(hi - lo + 1)
  }

  chance (num, den) { return this.uniform(den) < num }
  pick (n) { return this.uniform(n) }
  shuffle (list) {
    for (let i = list.length - 1; i >= 1; i--) {
      const j = this.uniform(i + 1);
      [list[i], list[j]] = [list[j], list[i]]
    }
    return list
  }
}

// Challenge IDs: <env>.v<version>.<64 lower-case hex>; exactly one text form per ID.
const ID_RE = /^([a-z][a-z0-9_]{0,31})\.v([1-9][0-9]{0,4})\.([0-9a-f]{64})$/
export function parseID (text) {
  const m = ID_RE.exec(text)
  if (!m) throw new Error(`challenge ID ${JSON.stringify(text)}: not <env>.v<version>.<64 lower-case hex>`)
  const version = Number(m[2])
  if (version > 0xffff) throw new Error(`challenge ID ${JSON.stringify(text)}: version ${version} exceeds 16 bits`)
  return { env: m[1], version, seed: unhex(m[3]) }
}
export const formatID = (id) => `${id.env}.v${id.version}.${hex(id.seed)}`
export const binaryID = (id) => concat([id.env.length], utf8(id.env), be(id.version, 2), id.seed)

// The seed of the counter-th challenge a validator draws for env/version at an anchor.
export const challengeSeed = (anchorHash, validator, env, version, counter) => sha256(concat(
  utf8('affine-ledger/challenge-seed/v1'), [0], anchorHash, validator,
  [env.length], utf8(env), be(version, 2), be(counter, 8)))
