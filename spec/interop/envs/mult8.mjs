// spec/envs/mult8.md, from its text alone: two eight-digit factors, the exact product.
import { Stream } from './rng.mjs'
import { clean, lastTagged, isDigit, isWord } from './text.mjs'

const SYSTEM = 'You are a careful calculator. Work the problem out however you like, then give your final answer as a single integer inside <answer></answer> tags, for example <answer>56088</answer>.'
const GLUE = new Set(['.', ',', '_', '\u2009', '\u202f'])
const SEPARATORS = [',', '_', ' ', '\u2009', '\u202f', '\\,', '{,}'].map((s) => [...s])
const MAX_DIGITS = 40

// integers(T): every integer of T, by the one left-to-right scan of "Integers". Positions are
// code points.
export function integers (text) {
  const c = [...text]
  const found = []
  const threeDigitsAt = (i) => isDigit(c[i]) && isDigit(c[i + 1]) && isDigit(c[i + 2]) && !isDigit(c[i + 3])
  const sepAt = (i, s) => s.every((ch, k) => c[i + k] === ch)
  let pos = 0
  for (;;) {
    let start = pos
    while (start < c.length && !isDigit(c[start])) start++
    if (start >= c.length) break
    let end = start
    while (isDigit(c[end])) end++
    if (end - start <= 3) {
      const s = SEPARATORS.find((s) => sepAt(end, s) && threeDigitsAt(end + s.length))
      if (s) while (sepAt(end, s) && threeDigitsAt(end + s.length)) end += s.length + 3
    }
    pos = end
    const before = c[start - 1], after = c[end]
    if (isWord(before) || (GLUE.has(before) && isDigit(c[start - 2]))) continue
    if (isWord(after) || (GLUE.has(after) && isDigit(c[end + 1]))) continue
    const digits = c.slice(start, end).filter(isDigit).join('')
    const negative = (before === '-' || before === '\u2212') && (start - 1 === 0 || !isWord(c[start - 2]))
    found.push({ digits, negative })
  }
  return found
}

const lastInteger = (text) => integers(text).at(-1) ?? null

export const mult8 = {
  name: 'mult8',
  version: 1,
  failure: 0,
  reset (seed) {
    const s = new Stream(seed)
    const a = s.range(10000000, 99999999)
    const b = s.range(10000000, 99999999)
    const user = `What is ${a} multiplied by ${b}? Give the exact product inside <answer></answer> tags.`
    return {
      messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: user }],
      info: { digits: 8, a, b },
      state: { p: BigInt(a) * BigInt(b) }
    }
  },
  step (st, action) {
    const t = clean(action)
    const tagged = lastTagged(t, 'answer')
    let ans
    if (tagged !== null) {
      ans = lastInteger(tagged)
      if (!ans) return end(0, 'no integer found in the <answer> tag')
    } else {
      ans = lastInteger(t)
      if (!ans) return end(0, 'no integer found')
    }
    if (ans.digits.length > MAX_DIGITS) return end(0, `integer too long: ${ans.digits.length} digits, limit ${MAX_DIGITS}`)
    const v = BigInt(ans.digits)
    if (!ans.negative && v === st.p) return end(1, 'correct')
    return end(0, `wrong: got ${ans.negative && v !== 0n ? '-' : ''}${v}, want ${st.p}`)
  }
}

const end = (reward, reason) => ({ observation: [], reward, done: true, reason, info: {} })
