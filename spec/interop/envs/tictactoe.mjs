// spec/envs/tictactoe.md, from its text alone: a seeded minimax opponent, one move per step.
import { Stream, derive, hex } from './rng.mjs'
import { clean, asciiLower } from './text.mjs'

const SYSTEM = `You are playing tic-tac-toe against an opponent on a 3x3 board. The cells are numbered 1 to 9, row by row:

 1 | 2 | 3
---+---+---
 4 | 5 | 6
---+---+---
 7 | 8 | 9

X moves first and the players take turns, each putting their mark in an empty cell. The first to get three marks in a row, column or diagonal wins; a full board without three in a row is a draw. In the boards shown to you, an empty cell shows its number.

On each turn, reply with your move as <move>N</move>, where N is the number of an empty cell; if your reply has several, the last one counts. A move to a taken cell or outside 1 to 9, or a reply without a move, loses the game at once.`
const ASK = 'Reply with your move as <move>N</move>.'
const LINES = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [1, 4, 7], [2, 5, 8], [3, 6, 9], [1, 5, 9], [3, 5, 7]]

// A board is an array of 9 cells ('X', 'O' or '.'), index 0 for cell 1.
export const key = (b) => b.join('')
const empties = (b) => [1, 2, 3, 4, 5, 6, 7, 8, 9].filter((c) => b[c - 1] === '.')
const toMove = (b) => b.filter((x) => x === 'X').length === b.filter((x) => x === 'O').length ? 'X' : 'O'
const completed = (b, mark) => LINES.find((l) => l.every((c) => b[c - 1] === mark)) ?? null
const other = (m) => m === 'X' ? 'O' : 'X'
export function render (b) {
  const cell = (c) => b[c - 1] === '.' ? String(c) : b[c - 1]
  const row = (r) => ` ${cell(3 * r + 1)} | ${cell(3 * r + 2)} | ${cell(3 * r + 3)}`
  return [row(0), '---+---+---', row(1), '---+---+---', row(2)].join('\n')
}

// score(B, c): the minimax score of playing empty cell c for the mark to move on B.
const memo = new Map()
export function score (b, c) {
  const k = key(b) + c
  if (memo.has(k)) return memo.get(k)
  const p = toMove(b)
  const next = b.slice()
  next[c - 1] = p
  const e = empties(next).length
  let v
  if (completed(next, p)) v = e + 1
  else if (e === 0) v = 0
  else v = -Math.max(...empties(next).map((d) => score(next, d)))
  memo.set(k, v)
  return v
}
export function classify (b) {
  const cells = empties(b)
  const scores = cells.map((c) => score(b, c))
  const best = Math.max(...scores)
  return { optimal: cells.filter((_, i) => scores[i] === best), others: cells.filter((_, i) => scores[i] !== best) }
}

function opponentMove (seed, mistake, b) {
  const s = new Stream(derive(seed, 'opponent/' + key(b)))
  const { optimal, others } = classify(b)
  const err = s.chance(mistake, 100)
  if (err && others.length > 0) return others[s.pick(others.length)]
  return optimal[s.pick(optimal.length)]
}

const WS = '[ \\t\\n\\r\\f]'
const TAGGED = /<move>([^<]*)<\/move>|<answer>([^<]*)<\/answer>/g
const WELL_FORMED = new RegExp(`^[ \\t\\n\\r\\f*\`]*(?:cell${WS}*)?([0-9]+)[ \\t\\n\\r\\f*\`.]*$`)
const BARE = new RegExp(`^${WS}*([0-9]+)\\.?${WS}*$`)
const NAMED = new RegExp(`\\b(?:cell|square|position)${WS}*(?:#${WS}*)?([0-9]+)\\b`, 'g')

// readMove(action): the move's digit run, or null; "Reading a move".
export function readMove (action) {
  const l = asciiLower(clean(action))
  let move = null
  for (const m of l.matchAll(TAGGED)) {
    const w = WELL_FORMED.exec(m[1] ?? m[2])
    if (w) move = w[1]
  }
  if (move !== null) return move
  const bare = BARE.exec(l)
  if (bare) return bare[1]
  for (const m of l.matchAll(NAMED)) move = m[1]
  return move
}

// writeNumber: a digit run without leading zeros ("0" for zero), past 20 digits cut to 20 and "...".
const writeNumber = (digits) => {
  const n = digits.replace(/^0+/, '') || '0'
  return n.length > 20 ? n.slice(0, 20) + '...' : n
}

export const tictactoe = {
  name: 'tictactoe',
  version: 1,
  failure: -1,
  reset (seed) {
    const modelX = new Stream(derive(seed, 'start')).chance(1, 2)
    const mistake = new Stream(derive(seed, 'mistake')).range(10, 30)
    const board = Array(9).fill('.')
    let opening = 0
    if (!modelX) {
      opening = opponentMove(seed, mistake, board)
      board[opening - 1] = 'X'
    }
    const game = hex(seed.slice(0, 4))
    const head = modelX
      ? `Game ${game}. You are X and move first.`
      : `Game ${game}. You are O. Your opponent is X and moved first, taking cell ${opening}.`
    return {
      messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: `${head}\n\n${render(board)}\n\n${ASK}` }],
      info: { model_mark: modelX ? 'X' : 'O', mistake_percent: mistake, opponent_opening: opening },
      state: { seed, mistake, board, mark: modelX ? 'X' : 'O' }
    }
  },
  // failed: the step info of a shared-check loss.
  failed (st, reason) { return { reason, board: key(st.board), model_move: 0, opponent_move: 0 } },
  step (st, action) {
    const b = st.board
    const result = (reward, done, reason, c, r, observation = []) =>
      ({ observation, reward, done, reason, info: { reason, board: key(b), model_move: c, opponent_move: r } })
    const digits = readMove(action)
    if (digits === null) return result(-1, true, 'no move found', 0, 0)
    const n = digits.replace(/^0+/, '')
    if (!/^[1-9]$/.test(n)) return result(-1, true, `illegal move: cell ${writeNumber(digits)} is out of range (1 to 9)`, 0, 0)
    const c = Number(n)
    if (b[c - 1] !== '.') return result(-1, true, `illegal move: cell ${c} is taken`, c, 0)
    b[c - 1] = st.mark
    let line = completed(b, st.mark)
    if (line) return result(1, true, `win: you completed cells ${line.join('-')}`, c, 0)
    if (empties(b).length === 0) return result(0, true, 'draw: the board is full', c, 0)
    const r = opponentMove(st.seed, st.mistake, b)
    b[r - 1] = other(st.mark)
    line = completed(b, other(st.mark))
    if (line) return result(-1, true, `loss: your opponent took cell ${r} and completed cells ${line.join('-')}`, c, r)
    if (empties(b).length === 0) return result(0, true, `draw: your opponent took cell ${r} and the board is full`, c, r)
    const content = `You took cell ${c} and your opponent took cell ${r}. You are ${st.mark}.\n\n${render(b)}\n\n${ASK}`
    return result(0, false, 'game continues', c, r, [{ role: 'user', content }])
  }
}
