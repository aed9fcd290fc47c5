// spec/envs/sat.md, from its text alone: planted random 3-SAT and the assignment parser.
import { Stream } from './rng.mjs'
import { clean, lastTagged, asciiLower, cutBytes } from './text.mjs'

const SYSTEM = 'You are a careful logician. Work out the problem, then give only the final assignment inside <answer></answer> tags.'

function generate (seed) {
  const s = new Stream(seed)
  const n = s.range(8, 20)
  const k = 3
  const m = Math.floor(n * 42 / 10)
  const hidden = [null]
  for (let v = 1; v <= n; v++) hidden.push(s.chance(1, 2))
  const clauses = []
  for (let j = 1; j <= m; j++) {
    const pool = Array.from({ length: n }, (_, i) => i + 1)
    const lits = []
    for (let i = 0; i < 3; i++) {
      const r = i + s.pick(n - i);
      [pool[i], pool[r]] = [pool[r], pool[i]]
      lits.push(pool[i])
    }
    for (let i = 0; i < 3; i++) if (s.chance(1, 2)) lits[i] = -lits[i]
    const isTrue = (l) => l > 0 ? hidden[l] : !hidden[-l]
    if (!lits.some(isTrue)) {
      const i = s.pick(3)
      lits[i] = -lits[i]
    }
    clauses.push(lits)
  }
  return { n, k, m, clauses, hidden }
}

const WS = /[ \t\n\v\f\r]/g
const TRIM = /^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g
const SIGNED = /^([+\-~!\u00ac\u2212])?[xX]?([0-9]+)$/
const NAMED_VAR = /^[xX]?([0-9]+)$/
const TRUE = new Set(['1', 't', 'true'])
const FALSE = new Set(['0', 'f', 'false'])

// parse(text): { lits: [{ digits, value }] } or { bad: token }; "Parsing an assignment text".
export function parse (text) {
  let t = text.replace(/[*`]/g, '').replace(TRIM, '')
  if (/^[A-Za-z]/.test(t)) {
    const m = /[^A-Za-z ]/.exec(t)
    if (m && m[0] === ':') t = t.slice(m.index + 1)
  }
  t = t.replace(WS, ' ').replace(/[,;[\]{}()]/g, ' ').replace(/ *([=:]) */g, '$1')
  const tokens = t.split(/ +/).filter((x) => x !== '')
  if (tokens.at(-1) === '0') tokens.pop()
  const lits = []
  for (const tok of tokens) {
    const s = SIGNED.exec(tok)
    if (s) { lits.push({ digits: s[2], value: s[1] === undefined || s[1] === '+' }); continue }
    const at = tok.includes('=') ? tok.indexOf('=') : tok.indexOf(':')
    const v = at > 0 ? NAMED_VAR.exec(tok.slice(0, at)) : null
    const val = at > 0 ? asciiLower(tok.slice(at + 1)) : ''
    if (v && (TRUE.has(val) || FALSE.has(val))) { lits.push({ digits: v[1], value: TRUE.has(val) }); continue }
    return { bad: tok }
  }
  return { lits }
}

export const sat = {
  name: 'sat',
  version: 1,
  failure: 0,
  reset (seed) {
    const { n, k, m, clauses, hidden } = generate(seed)
    const formula = `p cnf ${n} ${m}\n` + clauses.map((c) => c.map((l) => `${l} `).join('') + '0\n').join('')
    const user = 'Find a truth assignment that satisfies every clause of the following Boolean formula in conjunctive normal form (CNF).\n\n' +
      `The formula is written in DIMACS CNF format. The line "p cnf ${n} ${m}" says that there are ${n} variables, numbered 1 to ${n}, and ${m} clauses. Each following line is one clause: a list of literals ended by 0. The literal i stands for "variable i is true" and -i for "variable i is false". A clause is satisfied when at least one of its literals is true. The formula is satisfiable.\n\n` +
      formula + '\n' +
      `Give your final answer inside <answer></answer> tags as a space-separated list of ${n} signed variable numbers, each variable exactly once: i if variable i is true, -i if it is false. For example, with 4 variables: <answer>1 -2 -3 4</answer>`
    return {
      messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: user }],
      info: { n, k, m },
      state: { n, clauses, hidden }
    }
  },
  step (st, action) {
    const t = clean(action)
    const tagged = lastTagged(t, 'answer')
    let lits = null
    if (tagged !== null) {
      const p = parse(tagged)
      if (p.lits && p.lits.length === 0) return end(0, 'no assignment found')
      if (p.bad !== undefined) return end(0, `malformed answer: unexpected token "${cutBytes(p.bad, 32)}"`)
      lits = p.lits
    } else {
      for (const line of t.split('\n').reverse()) {
        const p = parse(line)
        if (p.lits && p.lits.length === st.n) { lits = p.lits; break }
      }
      if (lits === null) return end(0, 'no assignment found')
    }
    const value = new Map()
    for (const { digits, value: v } of lits) {
      const x = BigInt(digits)
      if (x < 1n || x > BigInt(st.n)) return end(0, `variable ${x} out of range`)
      if (value.has(Number(x))) return end(0, `variable ${x} assigned twice`)
      value.set(Number(x), v)
    }
    for (let v = 1; v <= st.n; v++) if (!value.has(v)) return end(0, `variable ${v} missing`)
    for (const [j, c] of st.clauses.entries()) {
      if (!c.some((l) => l > 0 ? value.get(l) : !value.get(-l))) return end(0, `clause ${j + 1} unsatisfied: ${c.join(' ')}`)
    }
    return end(1, 'correct')
  }
}

const end = (reward, reason) => ({ observation: [], reward, done: true, reason, info: {} })
