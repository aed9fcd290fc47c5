// js-libp2p 3.x calls Promise.withResolvers, which Node.js has from version
// 22; this polyfill lets the interop test run on Node.js 20 as well.
if (typeof Promise.withResolvers !== 'function') {
  Promise.withResolvers = function withResolvers () {
    let resolve, reject
    const promise = new this((res, rej) => { resolve = res; reject = rej })
    return { promise, resolve, reject }
  }
}
