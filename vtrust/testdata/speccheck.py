# An independent reimplementation of spec/vtrust.md from the text alone (Python 3 standard
# library only), checked against spec/vectors/vtrust.json: outcome records down to their
# DAG-CBOR bytes and CIDs, and every epoch's vTrust, duels, champion changes and weights.
# Run: python3 vtrust/testdata/speccheck.py   (TestSpecReimplementation runs it when python3 exists)
import json, hashlib, base64, os, sys
V = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "spec", "vectors") + "/"
M = 10**6

B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
def ss58(s):
    n = 0
    for ch in s: n = n*58 + B58.index(ch)
    raw = n.to_bytes(35, 'big')
    assert raw[0] == 42
    return raw[1:33]
def cid_bin(s):
    assert s[0] == 'b'
    t = s[1:].upper()
    return base64.b32decode(t + '='*(-len(t) % 8))

# --- minimal canonical DAG-CBOR encoder, with links (tag 42)
class Link:
    def __init__(self, b): self.b = b
def head(major, v):
    if v < 24: return bytes([major << 5 | v])
    for n, ai in ((1, 24), (2, 25), (4, 26), (8, 27)):
        if v < 1 << (8*n): return bytes([major << 5 | ai]) + v.to_bytes(n, 'big')
def enc(x):
    if isinstance(x, Link): return head(6, 42) + enc(b'\x00' + x.b)
    if isinstance(x, int): return head(0, x)
    if isinstance(x, bytes): return head(2, len(x)) + x
    if isinstance(x, str): b = x.encode(); return head(3, len(b)) + b
    if isinstance(x, dict):
        items = sorted(((enc(k), enc(v)) for k, v in x.items()), key=lambda kv: (len(kv[0]), kv[0]))
        return head(5, len(items)) + b''.join(k + v for k, v in items)
    raise Exception(x)

vec = json.load(open(V + 'vtrust.json'))
for ov in vec['outcomes']:
    o = ov['outcome']
    assert (o['verdict'] == 'agree') == (o['reason'] == '')
    obj = dict(o, auditor=ss58(o['auditor']), validator=ss58(o['validator']),
               block=Link(cid_bin(o['block'])), record=Link(cid_bin(o['record'])))
    b = enc(obj)
    assert b.hex() == ov['bytes'], o
    c = bytes([1, 0x71, 0x12, 0x20]) + hashlib.sha256(b).digest()
    assert 'b' + base64.b32encode(c).decode().lower().rstrip('=') == ov['cid']
print('outcomes ok')

SEV = {'agree': 0, 'disagree': 1, 'fault': 2}
def side(s): return (ss58(s['hotkey']), bytes.fromhex(s['model_hash']))

def epoch(inp):
    vals = sorted((ss58(v['hotkey']), v['stake'], v['hotkey']) for v in inp['validators'])
    idx = {h: i for i, (h, _, _) in enumerate(vals)}
    n = len(vals)
    # re-execution agreement
    worst = {}
    for o in inp['outcomes'] or []:
        v = ss58(o['validator'])
        if v not in idx: continue
        k = (v, cid_bin(o['record']))
        key = (-SEV[o['verdict']], ss58(o['auditor']), cid_bin(o['block']), o['reason'].encode())
        if k not in worst or key < worst[k][0]: worst[k] = (key, o)
    T = [dict(agreed=0, disagreed=0, faulted=0, evidence=[], votes=0, standing=0, superseded=0, scored=0,
              votes_agreed=0, envs_compared=0, envs_agreed=0) for _ in range(n)]
    for (v, rec), (_, o) in sorted(worst.items()):
        t = T[idx[v]]
        t[{'agree': 'agreed', 'disagree': 'disagreed', 'fault': 'faulted'}[o['verdict']]] += 1
        if o['verdict'] == 'fault' and len(t['evidence']) < 16: t['evidence'].append(o)
    for t in T:
        j = t['agreed'] + t['disagreed'] + t['faulted']
        t['R'] = 0 if t['faulted'] else (M if j == 0 else M*t['agreed']//j)
    # votes: one per validator per pair, of the epoch or standing (a record given as both is
    # one vote of the epoch); vo['old'] marks a standing vote
    uniq = {}
    for old, key in ((True, 'standing'), (False, 'votes')):
        for vo in inp.get(key) or []:
            v = ss58(vo['validator'])
            if v in idx: uniq[(v, cid_bin(vo['record']))] = dict(vo, old=old)
    latest = {}
    for (v, rec), vo in uniq.items():
        k = (side(vo['champion']), side(vo['contender']), v)
        cand = (-vo['start'], rec)
        if k in latest:
            T[idx[v]]['superseded'] += 1
            if cand >= latest[k][0]: continue
        latest[k] = (cand, vo)
    pairs = {}
    for (ch, co, v), (_, vo) in latest.items():
        pairs.setdefault((ch, co), []).append((idx[v], vo))
        T[idx[v]]['standing' if vo['old'] else 'votes'] += 1
    def maj(f, a): return 'contender' if f > a else ('champion' if a > f else '')
    ref = [vals[i][1]*T[i]['R'] for i in range(n)]
    info = {}
    for p in sorted(pairs):
        ballots = pairs[p]
        m = maj(sum(ref[i] for i, vo in ballots if vo['winner'] == 'contender'),
                sum(ref[i] for i, vo in ballots if vo['winner'] == 'champion'))
        envs = sorted({e['env'] for _, vo in ballots for e in vo['envs']})
        em = {}
        for e in envs:
            d = {i: next((x['decision'] for x in vo['envs'] if x['env'] == e), 'open') for i, vo in ballots}
            em[e] = maj(sum(ref[i] for i in d if d[i] == 'contender'), sum(ref[i] for i in d if d[i] == 'champion'))
        for i, vo in ballots:
            if vo['old']: continue  # standing votes are scored in their own epoch only
            t = T[i]
            if m:
                t['scored'] += 1; t['votes_agreed'] += vo['winner'] == m
            for x in vo['envs']:
                if x['decision'] != 'open' and em.get(x['env']):
                    t['envs_compared'] += 1; t['envs_agreed'] += x['decision'] == em[x['env']]
        info[p] = (m, [{'env': e, 'decision': em[e]} for e in envs])
    for t in T:
        t['D'] = M if t['scored'] == 0 else M*t['votes_agreed']//t['scored']
        t['vt'] = t['R']*t['D']//M
    w = [vals[i][1]*T[i]['vt'] for i in range(n)]
    total = sum(w)
    duels = []
    for p in sorted(pairs):
        ballots = pairs[p]
        f = sum(w[i] for i, vo in ballots if vo['winner'] == 'contender')
        a = sum(w[i] for i, vo in ballots if vo['winner'] == 'champion')
        duels.append(dict(pair=p, votes=len(ballots), standing=sum(vo['old'] for _, vo in ballots),
                          latest_start=max(vo['start'] for _, vo in ballots),
                          majority=info[p][0], envs=info[p][1],
                          **{'for': f}, against=a, winner='contender' if 2*f > total else 'champion'))
    miners = {ss58(m['hotkey']): m for m in inp['miners'] or []}
    cur = side(inp['champion'])
    changes, used, since = [], set(), 0
    if cur[0] != bytes(32):
        while True:
            cands = [(miners[d['pair'][1][0]]['commit_block'], d['pair'][1][0], d['pair'][1][1], k)
                     for k, d in enumerate(duels) if k not in used and d['pair'][0] == cur
                     and d['winner'] == 'contender' and d['pair'][1][0] in miners and d['latest_start'] >= since]
            if not cands: break
            k = min(cands)[3]
            used.add(k); changes.append((k, cur, duels[k]['pair'][1])); cur = duels[k]['pair'][1]
            since = duels[k]['latest_start']
    weights = {'uids': [miners[cur[0]]['uid']], 'values': [65535]} if cur[0] in miners and cur[0] != bytes(32) else {'uids': [], 'values': []}
    return vals, T, duels, total, changes, cur, weights

for e in vec['epochs']:
    vals, T, duels, total, changes, cur, weights = epoch(e['input'])
    out = e['output']
    assert len(out['validators']) == len(vals)
    for (h, stake, _), t, got in zip(vals, T, out['validators']):
        assert ss58(got['hotkey']) == h and got['stake'] == stake, e['name']
        for k, mine in [('agreed', t['agreed']), ('disagreed', t['disagreed']), ('faulted', t['faulted']),
                        ('reexec_ppm', t['R']), ('hard_fault', t['faulted'] > 0), ('votes', t['votes']),
                        ('standing', t['standing']),
                        ('superseded', t['superseded']), ('scored', t['scored']), ('votes_agreed', t['votes_agreed']),
                        ('envs_compared', t['envs_compared']), ('envs_agreed', t['envs_agreed']),
                        ('decision_ppm', t['D']), ('vtrust_ppm', t['vt'])]:
            assert got[k] == mine, (e['name'], k, got[k], mine)
        assert (got['evidence'] or []) == t['evidence'], e['name']
    assert int(out['total']) == total, e['name']
    assert len(out['duels']) == len(duels), e['name']
    for d, got in zip(duels, out['duels']):
        assert (side(got['champion']), side(got['contender'])) == d['pair'], e['name']
        for k in ('votes', 'standing', 'latest_start', 'majority', 'envs', 'winner'): assert got[k] == d[k], (e['name'], k)
        assert int(got['for']) == d['for'] and int(got['against']) == d['against'], e['name']
    assert [(c['duel'], side(c['from']), side(c['to'])) for c in out['changes']] == changes, e['name']
    assert side(out['champion']) == cur and out['weights'] == weights, e['name']
print('epochs ok')
