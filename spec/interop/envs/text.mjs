// spec/envs/README.md, from its text alone: the shared checks (size, empty), clean and
// last_tagged, and the character classes the environments share.
import { isWordCodePoint } from './unicode15.mjs'

export const MAX_BYTES = 65536

// asciiLower maps A-Z to a-z and nothing else, so indices stay valid and no Unicode folding
// (the Kelvin sign to k, long s to s) can sneak in, as a regular expression's i flag with u would.
export const asciiLower = (s) => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32))

// A word character is a code point of general category L or Nd in Unicode 15.0.
export const isWord = (ch) => ch !== undefined && isWordCodePoint(ch.codePointAt(0))
export const isDigit = (ch) => ch !== undefined && ch.length === 1 && ch >= '0' && ch <= '9'

// utf8Bytes counts the UTF-8 bytes of a string; a lone surrogate is written as U+FFFD (3 bytes).
export const utf8Bytes = (s) => Buffer.byteLength(s.toWellFormed(), 'utf8')

// cutBytes keeps the first max bytes of s (moved back to a character boundary) and adds "...",
// when s is longer than max bytes.
export function cutBytes (s, max) {
  if (utf8Bytes(s) <= max) return s
  let out = '', n = 0
  for (const ch of s) {
    const b = utf8Bytes(ch)
    if (n + b > max) break
    out += ch
    n += b
  }
  return out + '...'
}

// sharedCheck applies README.md's "Limits and shared reasons" in order; it returns the reason of
// a failure, or null when the action goes on to the environment's parser.
export function sharedCheck (action) {
  const n = utf8Bytes(action)
  if (n > MAX_BYTES) return `answer too large: ${n} bytes > ${MAX_BYTES}`
  if (/^\p{White_Space}*$/u.test(action)) return 'empty answer'
  return null
}

const FENCE_LINE = /^[ \t]*```[A-Za-z0-9_+-]*[ \t]*$/

// clean(text), README.md "Finding the answer in free text", steps 1 to 5 in order.
export function clean (text) {
  // 1. Invalid UTF-8 cannot occur in a JS string; its analogue, a lone surrogate, becomes U+FFFD.
  let t = text.toWellFormed()
  // 2. Each <think>...</think> block, non-greedy, left to right, becomes one space.
  let low = asciiLower(t)
  let out = '', i = 0
  for (;;) {
    const open = low.indexOf('<think>', i)
    if (open < 0) break
    const close = low.indexOf('</think>', open + 7)
    if (close < 0) break
    out += t.slice(i, open) + ' '
    i = close + 8
  }
  t = out + t.slice(i)
  // 3. A <think> left over was cut off: it and everything after it go.
  low = asciiLower(t)
  const open = low.indexOf('<think>')
  if (open >= 0) { t = t.slice(0, open); low = low.slice(0, open) }
  // 4. A </think> left over: everything up to and including the last one goes.
  const close = low.lastIndexOf('</think>')
  if (close >= 0) t = t.slice(close + 8)
  // 5. Code fence lines lose their content, keep their newline.
  return t.split('\n').map((line) => FENCE_LINE.test(line) ? '' : line).join('\n')
}

// lastTagged(text, tag): the content between the last closing tag that has an opening tag before
// it and the last such opening tag, or null. Only the last closing tag need be tried.
export function lastTagged (text, tag) {
  const low = asciiLower(text)
  const close = low.lastIndexOf(`</${tag}>`)
  if (close < 0) return null
  const open = low.lastIndexOf(`<${tag}>`, close)
  if (open < 0) return null
  return text.slice(open + tag.length + 2, close)
}
