// spec/envs/abd.md, from its text alone: the list language, its generator, and list answers.
import { Stream } from './rng.mjs'
import { clean, asciiLower, cutBytes } from './text.mjs'

const SYSTEM = 'You are a careful reasoner. Work the puzzle out however you like, then give your final answer as a list of integers inside <answer></answer> tags, for example <answer>[3, 1, 4]</answer>.'
const LIMIT = 1000000
const MAX_INPUT = 64
const MAX_STEPS = 2048

// An operation is { text, apply(list) -> list } where apply throws a value error's text.
const mapOp = (text, f) => ({
  text,
  apply: (x) => x.map((v) => {
    const r = f(v)
    if (Math.abs(r) > LIMIT) throw new Error(`value out of range: ${r} not in [-${LIMIT}, ${LIMIT}]`)
    return r
  })
})
const listOp = (text, apply) => ({ text, apply })
const ops = {
  add: (c) => mapOp(`map add ${c}`, (v) => v + c),
  mul: (c) => mapOp(`map mul ${c}`, (v) => v * c),
  reverse: () => listOp('reverse', (x) => x.slice().reverse()),
  asc: () => listOp('sort asc', (x) => x.slice().sort((a, b) => a - b)),
  desc: () => listOp('sort desc', (x) => x.slice().sort((a, b) => b - a)),
  even: () => listOp('filter even', (x) => x.filter((v) => v % 2 === 0)),
  odd: () => listOp('filter odd', (x) => x.filter((v) => v % 2 !== 0)),
  gt: (c) => listOp(`filter gt ${c}`, (x) => x.filter((v) => v > c)),
  lt: (c) => listOp(`filter lt ${c}`, (x) => x.filter((v) => v < c)),
  take: (k) => listOp(`take ${k}`, (x) => x.slice(0, k)),
  drop: (k) => listOp(`drop ${k}`, (x) => x.slice(k)),
  step: (k) => listOp(`step ${k}`, (x) => x.filter((_, i) => i % k === 0))
}

// run(program, input): the output list, or throws the interpreter's error text ("Limits").
export function run (program, input) {
  let x = input, steps = 0
  for (const [i, op] of program.entries()) {
    steps += Math.max(1, x.length)
    if (steps > MAX_STEPS) throw new Error(`op ${i + 1} (${op.text}): step limit exceeded (${MAX_STEPS})`)
    try { x = op.apply(x) } catch (e) { throw new Error(`op ${i + 1} (${op.text}): ${e.message}`) }
  }
  return x
}

const GROUPS = ['add', 'add', 'add', 'mul', 'mul', 'mul', 'reverse', 'reverse', 'sort', 'sort',
  'filter', 'filter', 'take', 'drop', 'drop', 'step']
const SHRINKING = new Set(['filter', 'take', 'drop', 'step'])

function generate (seed) {
  const s = new Stream(seed)
  const nOps = s.range(3, 6)
  const len = s.range(6, 12)
  const input = Array.from({ length: len }, () => s.range(-20, 20))
  let cur = input.slice(), prev = null
  const program = []
  for (let o = 0; o < nOps; o++) {
    let g
    do g = GROUPS[s.uniform(16)]
    while (g === prev || (SHRINKING.has(g) && cur.length < 2))
    const n = cur.length
    let op
    switch (g) {
      case 'add': { const m = s.range(1, 9); op = ops.add(s.chance(1, 2) ? -m : m); break }
      case 'mul': op = ops.mul([-3, -2, -1, 2, 3][s.pick(5)]); break
      case 'reverse': op = ops.reverse(); break
      case 'sort': op = s.pick(2) === 0 ? ops.asc() : ops.desc(); break
      case 'filter': {
        const k = s.pick(3)
        const e = cur[s.pick(n)]
        op = k === 0 ? (e % 2 === 0 ? ops.even() : ops.odd()) : k === 1 ? ops.gt(e - 1) : ops.lt(e + 1)
        break
      }
      case 'take': op = ops.take(s.range(Math.ceil(n / 2), n - 1)); break
      case 'drop': op = ops.drop(s.range(1, Math.floor(n / 2))); break
      case 'step': op = ops.step(s.range(2, 3)); break
    }
    program.push(op)
    cur = op.apply(cur)
    prev = g
  }
  return { program, input, output: cur }
}

const showList = (x) => `[${x.join(', ')}]`

// Lists ("Answer"): items are ints ([-+−] digits) separated by ws "," ws or ws1, with an optional
// trailing ws ",". readItems reads items from i and returns { values, end } or null.
const isWS = (ch) => ch === ' ' || ch === '\t' || ch === '\n' || ch === '\v' || ch === '\f' || ch === '\r'
const skipWS = (t, i) => { while (i < t.length && isWS(t[i])) i++; return i }
function readInt (t, i) {
  let j = i, neg = false
  if (t[j] === '-' || t[j] === '+' || t[j] === '\u2212') { neg = t[j] !== '+'; j++ }
  const d = j
  while (j < t.length && t[j] >= '0' && t[j] <= '9') j++
  if (j === d) return null
  const v = BigInt(t.slice(d, j))
  return { value: neg ? -v : v, end: j }
}
function readItems (t, i) {
  let r = readInt(t, i)
  if (!r) return null
  const values = [r.value]
  let end = r.end
  for (;;) {
    const q = skipWS(t, end)
    if (t[q] === ',') {
      const next = readInt(t, skipWS(t, q + 1))
      if (next) { values.push(next.value); end = next.end; continue }
      return { values, end: q + 1 }
    }
    if (q > end) {
      const next = readInt(t, q)
      if (next) { values.push(next.value); end = next.end; continue }
    }
    return { values, end }
  }
}
// readBracketed(t, i): the bracketed list starting at t[i] === '[', as { values, end } or null.
function readBracketed (t, i) {
  if (t[i] !== '[') return null
  const j = skipWS(t, i + 1)
  if (t[j] === ']') return { values: [], end: j + 1 }
  const items = readItems(t, j)
  if (!items) return null
  const k = skipWS(t, items.end)
  return t[k] === ']' ? { values: items.values, end: k + 1 } : null
}
function wholeList (c) {
  const b = readBracketed(c, 0)
  if (b && b.end === c.length) return b.values
  const items = readItems(c, 0)
  if (items && items.end === c.length) return items.values
  return null
}
const TRIM = /^[ \t\n\v\f\r`*]+|[ \t\n\v\f\r`*]+$/g

// findList(text): the answer list as BigInts, or null; "Answer" steps 1 to 3.
export function findList (text) {
  const low = asciiLower(text)
  const opens = [], closes = []
  for (let i = low.indexOf('<answer>'); i >= 0; i = low.indexOf('<answer>', i + 1)) opens.push(i)
  for (let i = low.indexOf('</answer>'); i >= 0; i = low.indexOf('</answer>', i + 1)) closes.push(i)
  for (const close of closes.reverse()) {
    const open = opens.filter((o) => o < close).at(-1)
    if (open === undefined) break
    const list = wholeList(text.slice(open + 8, close).replace(TRIM, ''))
    if (list) return list
  }
  for (let i = text.lastIndexOf('['); i >= 0; i = i > 0 ? text.lastIndexOf('[', i - 1) : -1) {
    const b = readBracketed(text, i)
    if (b) return b.values
  }
  return null
}

export const abd = {
  name: 'abd',
  version: 1,
  failure: 0,
  reset (seed) {
    const { program, input, output } = generate(seed)
    const user = `Find an input for the following program in a small list language.

The program reads a list of integers and runs its instructions from top to bottom, each on the list the one before it produced:
- map add C: add C to every element.
- map mul C: multiply every element by C.
- reverse: reverse the order of the list.
- sort asc: sort into ascending order. sort desc: sort into descending order.
- filter even, filter odd: keep only the even elements (or only the odd ones), in order. 0 is even; -3 is odd.
- filter gt C, filter lt C: keep only the elements greater than C (or less than C), in order.
- take K: keep the first K elements (the whole list if it is shorter).
- drop K: remove the first K elements (all of them if the list is shorter).
- step K: keep the elements at positions 0, K, 2K, ... (the first element, then every K-th one after it).
The input may have at most 64 elements. Every input value, and every value the program computes, must be between -1000000 and 1000000; otherwise the program fails.

Program:
\`\`\`
${program.map((op) => op.text).join('\n')}
\`\`\`

When the program ran on a hidden input list, its output was:
${showList(output)}

Give any input list on which the program outputs exactly this list; it need not be the hidden input. Answer with the list inside <answer></answer> tags, for example <answer>[3, 1, 4]</answer>.`
    return {
      messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: user }],
      info: { ops: program.length, input_len: input.length, output_len: output.length },
      state: { program, input, output }
    }
  },
  step (st, action) {
    const list = findList(clean(action))
    if (list === null) return end(0, 'no list found')
    if (list.length > MAX_INPUT) return end(0, `input too long: ${list.length} values > ${MAX_INPUT}`)
    const big = list.find((v) => v > BigInt(LIMIT) || v < -BigInt(LIMIT))
    if (big !== undefined) return end(0, `value out of range: ${cutBytes(big.toString(), 24)} not in [-${LIMIT}, ${LIMIT}]`)
    let got
    try { got = run(st.program, list.map(Number)) } catch (e) { return end(0, `program error: ${e.message}`) }
    if (showList(got) !== showList(st.output)) return end(0, `output differs: got ${showList(got)}, want ${showList(st.output)}`)
    return end(1, 'correct')
  }
}

const end = (reward, reason) => ({ observation: [], reward, done: true, reason, info: {} })
