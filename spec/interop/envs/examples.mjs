// The examples that spec/envs/*.md state in their text (tables, "Examples:", "so X matches"),
// as checks on the implementations here: they cover rules the vectors do not exercise.
import { clean, lastTagged } from './text.mjs'
import { integers } from './mult8.mjs'
import { score, classify, readMove, render } from './tictactoe.mjs'
import { parse } from './sat.mjs'
import { findList } from './abd.mjs'
import { occurrences } from './coin.mjs'

const board = (k) => [...k]
const lastInt = (t) => {
  const i = integers(t).at(-1)
  return i ? (i.negative ? '-' : '') + BigInt(i.digits) : null
}
const lits = (t) => {
  const p = parse(t)
  return p.bad !== undefined ? `bad ${p.bad}` : p.lits.map((l) => `${l.value ? '' : '-'}${BigInt(l.digits)}`).join(' ')
}
const list = (t) => {
  const l = findList(t)
  return l === null ? null : l.map(String).join(',')
}

// Each example: [document, what, got, want].
export const examples = () => [
  ['README.md', 'think blocks, any ASCII case, non-greedy', clean('a<THINK>x</Think>b<think>y</think>c'), 'a b c'],
  ['README.md', 'a cut-off <think> and what follows it go', clean('a<think>b'), 'a'],
  ['README.md', 'a reply that started mid-thought', clean('x</think>y</think>z'), 'z'],
  ['README.md', 'code fence lines are emptied, newlines stay', clean('a\n ```py \nb\n```\n````\n'), 'a\n\nb\n\n````\n'],
  ['README.md', 'a fence line ending in CR stays', clean('a\n```\r\nb'), 'a\n```\r\nb'],
  ['README.md', 'last_tagged pairs the last closing tag with the last opening tag before it', lastTagged('<answer>1</answer><ANSWER>2<answer>3</Answer><answer>4', 'answer'), '3'],
  ['README.md', 'last_tagged without an opening tag before the last closing one', lastTagged('</answer><answer>', 'answer'), null],
  ...[['= -42', '-42'], ['**1,082,152,022,374,638**.', '1082152022374638'], ['1 082 152', '1082152'],
    ['1_082_152', '1082152'], ['1\\,082\\,152', '1082152'], ['1{,}082{,}152', '1082152'],
    ['12345678 × 87654321 = 1082152022374638', '1082152022374638'], ['3-4', '4'], ['x-4', '4'],
    ['1,234 567', '567'], ['7 then 3.5', '7'], ['3.14', null], ['1.082.152', null], ['x2', null],
    ['1e16', null], ['12,34', null], ['1234,567', null], ['1,234,5678', null],
    ['0001082152022374638', '1082152022374638']]
    .map(([t, want]) => ['mult8.md', `last integer of ${JSON.stringify(t)}`, lastInt(t), want]),
  ['tictactoe.md', 'rendering of X in 1 and 5, O in 3 and 9', render(board('X.O.X...O')), ' X | 2 | O\n---+---+---\n 4 | X | 6\n---+---+---\n 7 | 8 | O'],
  ['tictactoe.md', 'every cell scores 0 on the empty board', [1, 2, 3, 4, 5, 6, 7, 8, 9].map((c) => score(board('.........'), c)).join(), '0,0,0,0,0,0,0,0,0'],
  ['tictactoe.md', 'optimal cells of X........', classify(board('X........')).optimal.join(), '5'],
  ['tictactoe.md', 'optimal cells of .X.......', classify(board('.X.......')).optimal.join(), '1,3,5,8'],
  ['tictactoe.md', 'cell 3 of XX.OO....', score(board('XX.OO....'), 3), 5],
  ['tictactoe.md', 'cells of XO..X....', [3, 4, 6, 7, 8, 9].map((c) => score(board('XO..X....'), c)).join(), '-5,-5,-5,-5,-5,-3'],
  ...[['cell 5', '5'], ['position #4', '4'], ['Cell5', '5'], ['cells 1-5-9', null], ['excell 6', null],
    ['cell 6th', null], ['<move>the corner</move>', null], ['<move><b>5</b></move>', null],
    ['<think><move>5</move></think>', null], ['<move>5</move', null], ['the centre', null],
    ['<move>**cell 7**.</move> then <answer>`3`</answer> <move>x</move>', '3'], [' 7. ', '7'], ['5.', '5'], ['5!', null]]
    .map(([t, want]) => ['tictactoe.md', `move read from ${JSON.stringify(t)}`, readMove(t), want]),
  ...[['3 -3 x3 ¬x3 +X03', '3 -3 3 -3 3'], ['x3=T 3:false X3=TRUE x007', '3 -3 3 7'],
    ['Answer: 1 -2', '1 -2'], ['Final assignment: 1', '1'], ['x1: T', '1'], ['x1 = true', '1'],
    ['1 2 0', '1 2'], ['0 0', '0'], ['0', ''], ['Answer:', ''], ['1 ~2 !3 −4', '1 -2 -3 -4'], ['1 two', 'bad two'], ['maybe', 'bad maybe'], ['Answer: maybe', 'bad maybe']]
    .map(([t, want]) => ['sat.md', `assignment parsed from ${JSON.stringify(t)}`, lits(t), want]),
  ...[['<answer>[3, 1, 4]</answer>', '3,1,4'], ['<answer>[3 1 4]</answer>', '3,1,4'],
    ['<answer>[ 3 ,1,\n4, ]</answer>', '3,1,4'], ['<answer>[]</answer>', ''], ['<answer>3, 1, 4</answer>', '3,1,4'],
    ['<answer>[1,,2]</answer>', null], ['<answer>[1-2]</answer>', null], ['<answer>[1.5]</answer>', null],
    ['<answer>[-]</answer>', null], ['<answer>[, 1]</answer>', null], ['<answer>−3, +2, -0</answer>', '-3,2,0'],
    ['see [1, 2] and [3, 4]: done', '3,4'], ['[1, 2] then [3, 4', '1,2']]
    .map(([t, want]) => ['abd.md', `list found in ${JSON.stringify(t)}`, list(t), want]),
  ...[['heads.', 'heads'], ['(heads)', 'heads'], ['**Heads**', 'heads'], ['_heads_', 'heads'], ['HEADS', 'heads'],
    ['Tails', 'tails'], ['headstrong', ''], ['tailspin', ''], ['heads2', ''], ['éheads', ''], ['head tail', ''],
    ['heads or TAILS', 'heads,tails']]
    .map(([t, want]) => ['coin.md', `occurrences in ${JSON.stringify(t)}`, occurrences(t).join(), want])
]
