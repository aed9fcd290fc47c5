// spec/envs/coin.md, from its text alone: a fair coin and a one-word guess.
import { Stream, derive } from './rng.mjs'
import { clean, lastTagged, asciiLower, isWord } from './text.mjs'

const SYSTEM = 'You are playing a coin-guessing game. Answer with one word, heads or tails, inside <answer></answer> tags: either <answer>heads</answer> or <answer>tails</answer>.'

// occurrences(T): the sides named in T, in order ("Words"). Positions are code points.
export function occurrences (text) {
  const c = [...text]
  const low = c.map(asciiLower)
  const found = []
  for (let i = 0; i + 5 <= c.length; i++) {
    const w = low.slice(i, i + 5).join('')
    if ((w === 'heads' || w === 'tails') && !isWord(c[i - 1]) && !isWord(c[i + 5])) {
      found.push(w)
      i += 4
    }
  }
  return found
}

export const coin = {
  name: 'coin',
  version: 1,
  failure: 0,
  reset (seed) {
    const outcome = new Stream(seed).chance(1, 2) ? 'heads' : 'tails'
    const toss = new Stream(derive(seed, 'coin/toss')).range(100000, 999999)
    const user = `Coin toss #${toss}: a fair coin has been tossed and nobody has seen how it landed. Guess whether it landed heads or tails, and give your guess inside <answer></answer> tags.`
    return {
      messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: user }],
      info: { toss },
      state: { outcome }
    }
  },
  step (st, action) {
    const t = clean(action)
    const tagged = lastTagged(t, 'answer')
    let guess
    if (tagged !== null) {
      const sides = new Set(occurrences(tagged))
      if (sides.size === 2) return end(0, 'the <answer> tag names both heads and tails')
      if (sides.size === 0) return end(0, 'no heads or tails in the <answer> tag')
      guess = [...sides][0]
    } else {
      guess = occurrences(t).at(-1)
      if (guess === undefined) return end(0, 'no heads or tails found')
    }
    if (guess === st.outcome) return end(1, 'correct')
    return end(0, `wrong: got ${guess}, want ${st.outcome}`)
  }
}

const end = (reward, reason) => ({ observation: [], reward, done: true, reason, info: {} })
