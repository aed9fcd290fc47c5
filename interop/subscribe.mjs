// A js-libp2p node joins a Go ledger node's gossip as spec/p2p.md says
// (TCP, Noise, yamux, gossipsub with StrictNoSign and the CID-of-data message
// ID), waits for one message on the blocks topic, checks it independently of
// the Go code, and prints the result as one JSON line.
//
//   node subscribe.mjs <go node multiaddr with /p2p/ID> <netuid> [timeout ms] [publish file]
//
// Lines on stdout: {"ready": "<own peer ID>"} once subscribed, then
// {"block_cid", "message_id", "validator", "height", "objects", ...}. With a
// publish file (a block message in hex), it then publishes that message,
// prints {"published": "<message ID hex>"} and stays up until stdin closes,
// so the Go side can check that it accepted a message from js-libp2p. Any
// failure prints {"error": "..."} and exits 1.
import './polyfill.mjs'
import { createLibp2p } from 'libp2p'
import { tcp } from '@libp2p/tcp'
import { noise } from '@chainsafe/libp2p-noise'
import { yamux } from '@chainsafe/libp2p-yamux'
import { identify } from '@libp2p/identify'
import { gossipsub } from '@libp2p/gossipsub'
import { multiaddr } from '@multiformats/multiaddr'
import * as dagCbor from '@ipld/dag-cbor'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import { readFile } from 'node:fs/promises'

const [addr, netuid = '0', timeoutArg = '30000', publishFile] = process.argv.slice(2)
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n')
const fail = (e) => { out({ error: String(e?.stack ?? e) }); process.exit(1) }
if (!addr) fail('usage: node subscribe.mjs <multiaddr> [netuid] [timeout ms]')
setTimeout(() => fail(`no block message within ${timeoutArg} ms`), Number(timeoutArg)).unref()

// spec/p2p.md#gossip: the message ID is the binary CID (v1, dag-cbor,
// sha2-256) of the message data.
const cidOf = async (bytes) => CID.create(1, dagCbor.code, await sha256.digest(bytes))
const hex = (b) => Buffer.from(b).toString('hex')

const topic = `/affine-ledger/${netuid}/blocks/1`
const node = await createLibp2p({
  addresses: { listen: ['/ip4/127.0.0.1/tcp/0'] },
  transports: [tcp()],
  connectionEncrypters: [noise()],
  streamMuxers: [yamux()],
  services: {
    identify: identify(),
    pubsub: gossipsub({
      globalSignaturePolicy: 'StrictNoSign',
      msgIdFn: async (msg) => (await cidOf(msg.data)).bytes,
      fallbackToFloodsub: false,
      emitSelf: false
    })
  }
})

async function check (msg) {
  const id = (await cidOf(msg.data)).bytes
  const m = dagCbor.decode(msg.data)
  const keys = Object.keys(m).sort()
  if (keys.join(',') !== 'block,objects') throw new Error(`message keys ${keys}`)
  if (!(m.block instanceof Uint8Array) || !Array.isArray(m.objects)) throw new Error('block must be bytes, objects an array')
  // Strict DAG-CBOR: re-encoding gives the same bytes.
  if (hex(dagCbor.encode(m)) !== hex(msg.data)) throw new Error('message is not canonical DAG-CBOR')
  const blockCID = await cidOf(m.block)
  const b = dagCbor.decode(m.block)
  const links = [...b.transcripts, ...b.decisions]
  if (m.objects.length !== 0 && m.objects.length !== links.length) throw new Error(`${m.objects.length} objects for ${links.length} links`)
  for (const [i, o] of m.objects.entries()) {
    const c = await cidOf(o)
    if (!c.equals(links[i])) throw new Error(`object ${i} hashes to ${c}, the block links ${links[i]}`)
  }
  const t0 = m.objects.length > 0 ? dagCbor.decode(m.objects[0]) : null
  return {
    block_cid: blockCID.toString(),
    message_id: hex(id),
    validator: hex(b.validator),
    height: b.height,
    transcripts: b.transcripts.length,
    objects: m.objects.length,
    first_transcript_challenge_env: t0?.env ?? null,
    checkpoint_size: b.checkpoint.size
  }
}

node.services.pubsub.addEventListener('message', (evt) => {
  if (evt.detail.topic !== topic) return
  check(evt.detail).then(async (res) => {
    out(res)
    if (publishFile) {
      const data = Buffer.from((await readFile(publishFile, 'utf8')).trim(), 'hex')
      await node.services.pubsub.publish(topic, data)
      out({ published: hex((await cidOf(data)).bytes) })
      process.stdin.resume()
      await new Promise((resolve) => process.stdin.on('end', resolve))
    }
    await node.stop()
    process.exit(0)
  }, fail)
})

try {
  node.services.pubsub.subscribe(topic)
  await node.dial(multiaddr(addr))
  // Ready once the Go node's subscription is known: gossip can flow.
  while (!node.services.pubsub.getSubscribers(topic).length) {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  out({ ready: node.peerId.toString() })
} catch (e) {
  fail(e)
}
