// Unicode 15.0 word characters (general category L or Nd), spec/envs/mult8.md and coin.md.
// The engine's \p{L} follows its own Unicode version (17.0 in Node 20.20), which has letters that
// 15.0 did not, so the table is fixed here. Each item is a range, base 36: 'start' or
// 'start-length', where the range is start..start+length. Generated from
// @unicode/unicode-15.0.0@2.0.7 (General_Category/Letter and Decimal_Number code points).
const RANGES = [
  '1c-9 1t-p 2p-p 4q 51 56 5c-m 60-u 6w-cp jq-b kg-4 ks ku og-4 om-1 oq-3 ov p2 p4-2 p8 pa-j pv-2a',
  's7-3u wa-4l 10x-11 121 128-14 15c-q 167-3 17k-16 19c-9 19q-1 19t-2q 1cl 1d1-1 1da-e 1dr 1e8',
  '1ea-t 1fx-2g 1ip 1j4-16 1kk-1 1kq 1kw-l 1lm 1lw 1m0 1mo-o 1nk-a 1o0-n 1op-5 1pc-15 1s4-1h 1tp',
  '1u8 1ug-9 1uu-9 1v5-f 1vp-7 1vz-1 1w3-l 1wq-6 1wy 1x2-3 1x9 1xq 1y4-1 1y7-2 1ye-b 1z0 1z9-5',
  '1zj-1 1zn-l 20a-6 20i-1 20l-1 20o-1 21l-3 21q 21y-9 22a-2 22t-8 233-2 237-l 23u-6 242-1 245-4',
  '24d 24w 25c-1 25i-9 261 26d-7 26n-1 26r-l 27e-6 27m-1 27p-4 27x 28s-1 28v-2 292-9 29d 29v 29x-5',
  '2a6-2 2aa-3 2ah-1 2ak 2am-1 2ar-1 2aw-2 2b2-b 2c0 2cm-9 2dh-7 2dq-2 2du-m 2ei-f 2f1 2fs-2 2fx',
  '2g0-1 2g6-9 2gw 2h1-7 2ha-2 2he-m 2i2-9 2id-4 2il 2jh-1 2jk-1 2jq-9 2k1-1 2kk-8 2ku-2 2ky-14 2m5',
  '2mm 2ms-2 2n3-2 2na-9 2nu-5 2o5-h 2oq-n 2pf-8 2pp 2ps-6 2qu-9 2rl-1b 2sy-1 2tc-6 2ts-9 2v5-1 2v8',
  '2va-4 2vg-n 2w5 2w7-9 2wi-1 2wt 2ww-4 2x2 2xc-9 2xo-3 2yo 2zk-9 30g-7 30p-z 32g-4 35s-16 37j-a',
  '380-5 38a-3 38h 38l-1 38u-2 391-c 39q 39s-9 3a8-11 3bb 3bh 3bk-16 3cs-98 3m2-3 3m8-6 3mg 3mi-3',
  '3mo-14 3nu-3 3o0-w 3oy-3 3p4-6 3pc 3pe-3 3pk-e 3q0-1k 3rm-3 3rs-1u 3uo-f 3vk-2d 3y0-5 3y9-h7',
  '4fj-g 4g1-p 4gw-22 4j5-7 4jk-h 4kf-i 4lc-h 4m8-c 4mm-2 4n4-1f 4pj 4po 4ps-9 4r4-9 4rk-2g 4u8-4',
  '4uf-x 4ve 4vk-1x 4xs-u 4zq-13 50w-4 51c-17 52o-p 53k-9 54w-m 55s-1g 58g-9 58w-9 59j 5c5-1a 5dx-7',
  '5e8-9 5fn-t 5gu-1j 5j4-z 5kw-9 5l9-1c 5mo-8 5n4-16 5od-2 5pl-3 5pq-5 5px-1 5q2 5q8-5b 5xc-7p',
  '654-5 65c-11 66g-5 66o-7 66x 66z 671 673-u 680-1g 69i-6 69q 69u-2 69y-6 6a8-3 6ae-5 6ao-c 6b6-2',
  '6ba-6 6ep 6f3 6fk-c 6iq 6iv 6iy-9 6j9 6jd-4 6jo 6jq 6js 6ju-3 6jz-a 6kc-3 6kl-4 6ku 6mb-1 8ow-6c',
  '8vf-3 8vm-1 8w0-11 8x3 8x9 8xc-1j 8z3 8zk-m 90g-6 90o-6 90w-6 914-6 91c-6 91k-6 91s-6 920-6 94f',
  '9hh-1 9ip-4 9iz-1 9j5-2d 9lp-2 9lt-2h 9oc-3 9ol-16 9pt-2l 9sw-v 9v4-f a9s-533 feo-h3g wk0-19',
  'wlc-7g wsw-r wu8-1a wvz-u www-1x x07-8 x0i-2u x3f-1r x5c-1 x5f x5h-4 x6a-f x6r-2 x6v-3 x70-m',
  'x8g-1f xaa-1d xcg-9 xde-5 xdn xdp-1 xds-11 xf4-m xgg-s xhg-1a xjj-a xk0-4 xk6-o xkw-14 xmo-2',
  'xms-7 xn4-9 xnk-m xoa xoe-1d xpt xpx-1 xq1-4 xq8 xqa xqz-2 xr4-a xrm-2 xs1-5 xs9-5 xsh-5 xsw-6',
  'xt4-6 xtc-16 xuk-d xv4-36 xyo-9 xz4-8mb 16ls-m 16mj-1c 1d6o-a5 1dgw-2x 1dkw-6 1dlf-4 1dlp 1dlr-9',
  '1dm2-c 1dmg-4 1dmm 1dmo-1 1dmr-1 1dmu-2z 1dqr-a2 1e1c-1r 1e36-1h 1e5s-b 1e9c-4 1e9i-3q 1eds-9',
  '1ee9-p 1ef5-p 1eg6-2g 1eiq-5 1eiy-5 1ej6-5 1eje-2 1ekg-b 1ekt-p 1elk-i 1em4-1 1em7-e 1emo-d',
  '1eo0-3e 1f28-s 1f34-1c 1f5s-v 1f71-j 1f7m-7 1f80-11 1f9c-t 1fa8-z 1fbc-7 1fcw-4d 1fhc-9 1fhs-z',
  '1fiw-z 1fk0-13 1flc-1f 1fn4-a 1fng-e 1fnw-6 1fo4-1 1fo7-a 1foj-e 1foz-6 1fp7-1 1fr4-8m 1g00-l',
  '1g0w-7 1g1s-5 1g1z-15 1g36-8 1g5c-5 1g5k 1g5m-17 1g6v-1 1g70 1g73-m 1g80-m 1g8w-u 1gbk-i 1gc4-1',
  '1gcg-l 1gdc-p 1gg0-1j 1ghq-1 1gjk 1gk0-3 1gk5-2 1gk9-s 1gm8-s 1gn4-s 1gow-7 1gp5-r 1gqo-1h',
  '1gsg-l 1gtc-i 1gu8-h 1gxs-20 1h1c-1e 1h34-1e 1h4w-z 1h68-9 1hfk-15 1hgw-1 1hj4-s 1hk7 1hkg-l',
  '1hm8-h 1ho0-k 1hpc-m 1hqb-1g 1ht2-9 1htd-1 1hth 1htv-18 1hw0-o 1hww-9 1hxf-z 1hyu-9 1hz8 1hzb',
  '1hzk-y 1i0m 1i0z-1b 1i2p-3 1i34-a 1i3g 1i4g-h 1i4z-o 1i67-1 1i80-6 1i88 1i8a-3 1i8f-e 1i8v-9',
  '1i9c-1a 1ib4-9 1ibp-7 1ibz-1 1ic3-l 1icq-6 1icy-1 1id1-4 1id9 1ids 1ie5-4 1iio-1g 1ikn-3 1ikw-9',
  '1ilb-2 1im8-1b 1io4-1 1io7 1iog-9 1itc-1a 1ivs-3 1iww-1b 1iys 1iz4-9 1j0g-16 1j20 1j28-9 1j40-q',
  '1j5c-9 1j5s-6 1jb4-17 1jfk-21 1ji7-7 1jih 1jik-7 1jit-1 1jiw-n 1jjz 1jk1 1jkg-9 1jmo-7 1jmy-12',
  '1joh 1joj 1jpc 1jpn-13 1jqy 1jrk 1jrw-19 1jtp 1ju8-20 1k3k-8 1k3u-10 1k5c 1k5s-9 1k6q-t 1kao-6',
  '1kaw-1 1kaz-11 1kcm 1kcw-9 1kdc-5 1kdj-1 1kdm-v 1kew 1kf4-9 1ko0-i 1koy 1kp0-c 1kpe-x 1kr4-9',
  '1kts 1kw0-pl 1ls0-5f 1nyo-2o 1o1s-tr 1ow1-5 1s00-g6 1z40-fs 1zk0-u 1zkw-9 1zlc-26 1znk-9 1zo0-t',
  '1zpc-1b 1zr4-3 1zrk-9 1zs3-k 1zst-i 20cg-1r 20hs-22 20k0 20lv-c 20o0-1 20o3 20ow-4qf 25fk-yd',
  '26f4-8 2dbk-3 2dbp-6 2dbx-1 2dc0-82 2dki 2dlc-2 2dlh 2dlw-3 2dm8-az 2fpc-2y 2fsg-c 2fsw-8 2ftc-9',
  '2kg0-2c 2kie-1y 2kke-1 2kki 2kkl-1 2kkp-3 2kku-b 2kl7 2kl9-6 2klh-1s 2knb-3 2knh-7 2knq-6 2kny-r',
  '2kor-3 2kow-4 2kp2 2kp6-6 2kpe-9f 2kyw-o 2kzm-o 2l0c-u 2l18-o 2l1y-u 2l2u-o 2l3k-u 2l4g-o 2l56-u',
  '2l62-o 2l6s-7 2l72-1d 2mm8-u 2mn9-5 2muo-1p 2n0g-18 2n1z-6 2n28-9 2n2m 2nbk-t 2ncw-17 2ne8-9',
  '2nrk-r 2nsg-9 2odc-6 2odk-3 2odp-1 2ods-e 2oe8-5g 2olc-1v 2onf 2onk-9 2pkw-3 2pl1-q 2plt-1 2plw',
  '2plz 2pm1-9 2pmc-3 2pmh 2pmj 2pmq 2pmv 2pmx 2pmz 2pn1-2 2pn5-1 2pn8 2pnb 2pnd 2pnf 2pnh 2pnj',
  '2pnl-1 2pno 2pnr-3 2pnw-6 2po4-3 2po9-3 2poe 2pog-9 2por-g 2ppd-2 2pph-4 2ppn-g 2sc0-9 2t4w-wyn',
  '3q4g-37d 3tc0-65 3ti8-4g1 3xyo-5rk 464g-f1 47pc-3t6 4bio-38f'
].join(' ').split(' ').map((it) => {
  const [a, n = '0'] = it.split('-')
  const lo = parseInt(a, 36)
  return [lo, lo + parseInt(n, 36)]
})

// isWordCodePoint reports whether code point c is a letter or a decimal digit in Unicode 15.0.
export function isWordCodePoint (c) {
  let lo = 0, hi = RANGES.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (c < RANGES[mid][0]) hi = mid - 1
    else if (c > RANGES[mid][1]) lo = mid + 1
    else return true
  }
  return false
}
