// Regenerates every task of spec/vectors/env-*.json from its challenge ID and re-scores every
// recorded answer, with implementations written from spec/envs/*.md, spec/randomness.md and
// spec/challenge-id.md alone (envs/*.mjs); nothing here shares code with the Go implementation.
// Also checks spec/vectors/randomness.json and challenge-id.json, which ledger.mjs does not.
import { readFileSync } from 'node:fs'
import { Stream, derive, hex, unhex, parseID, formatID, binaryID, challengeSeed } from './envs/rng.mjs'
import { Episode } from './envs/episode.mjs'
import { mult8 } from './envs/mult8.mjs'
import { tictactoe } from './envs/tictactoe.mjs'
import { sat } from './envs/sat.mjs'
import { abd } from './envs/abd.mjs'
import { coin } from './envs/coin.mjs'
import { examples } from './envs/examples.mjs'

const load = (name) => JSON.parse(readFileSync(new URL(`../vectors/${name}`, import.meta.url)))
const show = (v) => JSON.stringify(v)
let ok = 0, bad = 0
const check = (cond, what) => { if (cond) ok++; else { bad++; console.error('FAIL', what) } }
const same = (got, want, what) => check(show(got) === show(want), `${what}: got ${show(got)}, want ${show(want)}`)
const sorted = (o) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]))
const throws = (f) => { try { f(); return false } catch { return true } }

// randomness.md: every list draws from a fresh stream of the seed.
for (const st of load('randomness.json').streams) {
  const seed = unhex(st.seed)
  const at = `randomness ${st.seed.slice(0, 8)}`
  let s = new Stream(seed)
  same(st.u64.map(() => s.u64().toString()), st.u64, `${at} u64`)
  for (const u of st.uniform) {
    s = new Stream(seed)
    same(u.results.map(() => s.uniformBig(BigInt(u.n)).toString()), u.results, `${at} uniform(${u.n})`)
  }
  for (const r of st.range) {
    s = new Stream(seed)
    same(r.results.map(() => s.range(r.lo, r.hi)), r.results, `${at} range(${r.lo}, ${r.hi})`)
  }
  s = new Stream(seed)
  same(st.chance.results.map(() => s.chance(st.chance.num, st.chance.den)), st.chance.results, `${at} chance(${st.chance.num}, ${st.chance.den})`)
  s = new Stream(seed)
  same(s.shuffle(Array.from({ length: 16 }, (_, i) => i)), st.shuffle_0_to_15, `${at} shuffle`)
  for (const d of st.derive) same(hex(derive(seed, d.label)), d.seed, `${at} derive ${show(d.label)}`)
}

// challenge-id.md: text and binary forms, seed derivation, malformed text forms.
const cid = load('challenge-id.json')
for (const d of cid.derive) {
  const seed = challengeSeed(unhex(d.anchor_hash), unhex(d.validator), d.env, d.version, d.counter)
  same(hex(seed), d.seed, `challenge seed ${d.env} v${d.version} counter ${d.counter}`)
  same(formatID({ env: d.env, version: d.version, seed }), d.challenge_id, `challenge ID of ${d.env} counter ${d.counter}`)
}
for (const id of cid.ids) {
  const parsed = parseID(id.text)
  same(hex(binaryID(parsed)), id.binary, `binary form of ${id.text}`)
  same(formatID(parsed), id.text, `text form of ${id.text} round-trips`)
}
for (const m of cid.malformed) check(throws(() => parseID(m)), `malformed challenge ID ${show(m)} is rejected`)

// The environments: regenerate the opening, replay every recorded answer.
for (const env of [mult8, tictactoe, sat, abd, coin]) {
  const vec = load(`env-${env.name}.json`)
  same([vec.env, vec.version], [env.name, env.version], `env-${env.name}.json env and version`)
  const ep = new Episode(env)
  check(throws(() => ep.step('1')), `${env.name}: step before reset is an error`)
  for (const [ci, c] of vec.cases.entries()) {
    const at = `${env.name} case ${ci} (${c.challenge_id})`
    const id = parseID(c.challenge_id)
    same(hex(id.seed), c.seed, `${at} seed`)
    same(hex(binaryID(id)), c.challenge_id_binary, `${at} binary challenge ID`)
    let opening
    try { opening = ep.reset(c.challenge_id) } catch (e) { check(false, `${at} reset: ${e.message}`); continue }
    const { observation, info } = opening
    same(observation.length, c.messages.length, `${at} number of opening messages`)
    for (const [i, m] of c.messages.entries()) {
      same(observation[i]?.role, m.role, `${at} opening message ${i} role`)
      same(observation[i]?.content, m.content, `${at} opening message ${i} (${m.role}) content`)
    }
    same(sorted(info), sorted(c.info), `${at} info`)
    for (const a of c.answers) {
      const aat = `${at} answer ${show(a.label)}`
      ep.reset(c.challenge_id) // succeeded above
      const replies = []
      let last = {}
      for (const [i, action] of a.actions.entries()) {
        try { last = ep.step(action) } catch (e) { check(false, `${aat} step ${i + 1}: ${e.message}`); break }
        same(last.reward, a.rewards[i], `${aat} step ${i + 1} reward`)
        same(last.done, i === a.actions.length - 1, `${aat} step ${i + 1} done`)
        replies.push(...last.observation)
      }
      same(replies, a.replies ?? [], `${aat} replies`)
      same(last.reward, a.reward, `${aat} final reward`)
      same(last.reason, a.reason, `${aat} final reason`)
      check(throws(() => ep.step(a.actions.at(-1))), `${aat}: a step after done is an error`)
    }
  }
  // README.md "Interface": a reset with another env's or version's ID fails and ends the episode.
  const other = env.name === 'coin' ? 'mult8' : 'coin'
  for (const wrong of [`${other}.v1.${'00'.repeat(32)}`, `${env.name}.v2.${'00'.repeat(32)}`]) {
    ep.reset(vec.cases[0].challenge_id)
    check(throws(() => ep.reset(wrong)), `${env.name}: reset with ${wrong} is an error`)
    check(throws(() => ep.step('1')), `${env.name}: the reset with ${wrong} ended the running episode`)
  }
}

// The examples the env documents state in their own text.
const fromVectors = ok + bad
for (const [doc, what, got, want] of examples()) same(got, want, `spec/envs/${doc} example: ${what}`)

console.log(`envs: ${ok} checks passed, ${bad} failed (${fromVectors} from spec/vectors, ${ok + bad - fromVectors} from examples in spec/envs)`)
if (bad) process.exit(1)
