// The lifecycle of spec/envs/README.md "Interface": reset by challenge ID, then steps until done,
// with the shared checks applied before an environment parses an action.
import { parseID } from './rng.mjs'
import { sharedCheck } from './text.mjs'

export class Episode {
  constructor (env) {
    this.env = env
    this.state = null
    this.done = true
  }

  reset (idText) {
    this.state = null
    this.done = true
    const id = parseID(idText)
    if (id.env !== this.env.name || id.version !== this.env.version) {
      throw new Error(`reset: ${idText} is not ${this.env.name} version ${this.env.version}`)
    }
    const { messages, info, state } = this.env.reset(id.seed)
    this.state = state
    this.done = false
    return { observation: messages, info: { challenge_id: idText, env: id.env, version: id.version, ...info } }
  }

  step (action) {
    if (this.state === null) throw new Error('step before reset')
    if (this.done) throw new Error('step after the episode ended')
    const reason = sharedCheck(action)
    const out = reason !== null
      ? { observation: [], reward: this.env.failure, done: true, reason, info: this.env.failed?.(this.state, reason) ?? {} }
      : this.env.step(this.state, action)
    this.done = out.done
    return out
  }
}
