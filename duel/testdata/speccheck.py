# An independent reimplementation of spec/duel.md from the text alone (Python 3 standard
# library only), checked against spec/vectors/duel-*.json: Wilson bounds, the sequential rule,
# the ratio to beat, and the records down to their DAG-CBOR bytes and CIDs.
# Run: python3 duel/testdata/speccheck.py   (TestSpecReimplementation runs it when python3 exists)
import json, hashlib, base64, math
import os, sys
V = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "spec", "vectors") + "/"
M=10**6
def outside(w,n,z,x): return M*(M*w-n*x)**2 >= z*z*n*x*(M-x)
def bounds(w,n,z):
    if n==0: return 0,M
    lo=0
    if w>0:
        a,b=0,-(-M*w//n)-1
        while a<b:
            mid=(a+b+1)//2
            if outside(w,n,z,mid): a=mid
            else: b=mid-1
        lo=a
    up=M
    if w<n:
        a,b=M*w//n+1,M
        while a<b:
            mid=(a+b)//2
            if outside(w,n,z,mid): b=mid
            else: a=mid+1
        up=a
    return lo,up
for c in json.load(open(V+'duel-wilson.json'))['cases']:
    assert bounds(c['wins'],c['n'],c['z_milli'])==(c['lower_ppm'],c['upper_ppm']),c
print('wilson ok')

def run_env(rule,ratio,outs):
    w=l=d=0; looks=0; lw=0; dec='open'; reason=''; used=0
    for o in outs:
        if dec!='open': break
        used+=1
        if o=='W': w+=1
        elif o=='L': l+=1
        else: d+=1
        if o!='D' and w+l==rule['looks'][looks]:
            looks+=1; lw=w
            lo,up=bounds(w,w+l,rule['z_milli'])
            if lo>ratio: dec,reason='contender','bound'
            elif up<ratio: dec,reason='champion','bound'
            elif looks==len(rule['looks']): dec,reason='champion','last_look'
        if dec=='open' and w+l+d==rule['max_challenges']: dec,reason='champion','max_challenges'
    lo,up=(0,M) if looks==0 else bounds(lw,rule['looks'][looks-1],rule['z_milli'])
    return dict(used=used,decision=dec,reason=reason,looks=looks,lower_ppm=lo,upper_ppm=up,w=w,l=l,d=d)
for c in json.load(open(V+'duel-rule.json'))['cases']:
    r=run_env(c['rule'],c['ratio_ppm'],c['outcomes'])
    for k in ['used','decision','reason','looks','lower_ppm','upper_ppm']:
        assert r[k]==c[k],(k,r,c)
print('rule ok')

def decay(e,t,h):
    if e==0 or t//h>=20: return 0
    lo,hi=0,e
    while lo<hi:
        mid=(lo+hi+1)//2
        if mid**h * 2**t <= e**h: lo=mid
        else: hi=mid-1
    return lo
def geomean(rates):
    if not rates or 0 in rates: return 0
    p=math.prod(rates); n=len(rates); lo,hi=0,M
    while lo<hi:
        mid=(lo+hi+1)//2
        if mid**n<=p: lo=mid
        else: hi=mid-1
    return lo
R=json.load(open(V+'duel-ratio.json'))
for c in R['decay']: assert decay(c['excess'],c['elapsed'],c['half_life'])==c['result'],c
fl=M//2+R['params']['epsilon_ppm']; H=R['params']['half_life_blocks']
for c in R['ratio_at']:
    want=fl if c['set_ppm']<=fl else fl+decay(c['set_ppm']-fl,c['elapsed'],H)
    assert want==c['ratio_ppm'],c
for c in R['geomean']:
    g=geomean(c['rates_ppm']); assert g==c['geomean_ppm'],c
    assert min(max(g,fl),M-1)==c['next_ppm'],c
print('ratio ok')

# --- minimal canonical DAG-CBOR encoder
def head(major,v):
    if v<24: return bytes([major<<5|v])
    for n,ai in ((1,24),(2,25),(4,26),(8,27)):
        if v < 1<<(8*n): return bytes([major<<5|ai])+v.to_bytes(n,'big')
def enc(x):
    if isinstance(x,bool): raise Exception
    if isinstance(x,Link): return bytes([0xd8,42])+enc(b'\x00'+bytes(x))
    if isinstance(x,int): return head(0,x)
    if isinstance(x,bytes): return head(2,len(x))+x
    if isinstance(x,str): b=x.encode(); return head(3,len(b))+b
    if isinstance(x,list): return head(4,len(x))+b''.join(enc(i) for i in x)
    if isinstance(x,dict):
        items=sorted(((enc(k),enc(v)) for k,v in x.items()),key=lambda kv:(len(kv[0]),kv[0]))
        return head(5,len(items))+b''.join(k+v for k,v in items)
B58='123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
def ss58_decode(s):
    n=0
    for ch in s: n=n*58+B58.index(ch)
    raw=n.to_bytes(35,'big')
    assert raw[0]==42
    return raw[1:33]
def id_bin(text):
    env,ver,seed=text.split('.')
    return bytes([len(env)])+env.encode()+int(ver[1:]).to_bytes(2,'big')+bytes.fromhex(seed)
def side_obj(x): return {'hotkey':ss58_decode(x['hotkey']),'model_hash':bytes.fromhex(x['model_hash'])}
def result_obj(r):
    obj=dict(r)
    obj['start']={'number':r['start']['number'],'hash':bytes.fromhex(r['start']['hash'])}
    for side in ('champion','contender'): obj[side]=side_obj(r[side])
    obj['envs']=[dict(e,challenges=[id_bin(c) for c in e['challenges']]) for e in r['envs']]
    return obj
def cid_bytes(b): return bytes([1,0x71,0x12,0x20])+hashlib.sha256(b).digest()
def cid_text(b): return 'b'+base64.b32encode(cid_bytes(b)).decode().lower().rstrip('=')
class Link(bytes): pass  # CBOR tag 42 over 0x00 || binary CID
for rec in json.load(open(V+'duel-records.json'))['records']:
    r=rec['result']; rule=r['rule']; N=len(r['envs'])
    won=0; rates=[]
    for e in r['envs']:
        x=run_env(rule,r['ratio_ppm'],e['outcomes'])
        assert x['used']==len(e['outcomes']),'outcome after decision'
        rate=500000 if x['w']+x['l']==0 else M*x['w']//(x['w']+x['l'])
        for k,v in [('wins',x['w']),('losses',x['l']),('draws',x['d']),('looks',x['looks']),('lower_ppm',x['lower_ppm']),('upper_ppm',x['upper_ppm']),('rate_ppm',rate),('decision',x['decision']),('reason',x['reason'])]:
            assert e[k]==v,(rec['label'],e['env'],k,e[k],v)
        rates.append(rate); won+= x['decision']=='contender'
    opn=sum(1 for e in r['envs'] if e['decision']=='open')
    winner='contender' if 2*won>N else ('champion' if 2*(won+opn)<=N else None)
    assert winner==r['winner'] and won==r['envs_won'] and geomean(rates)==r['geomean_ppm']
    b=enc(result_obj(r))
    assert b.hex()==rec['cbor'],rec['label']
    assert cid_text(b)==rec['cid']
print('records ok')

# --- adoption records: the frontier the source leaves, and the encoding
A=json.load(open(V+'duel-adopt.json')); fl=M//2+A['params']['epsilon_ppm']
for rec in A['records']:
    src=rec['source_result']; a=rec['adopt']; sb=enc(result_obj(src))
    assert cid_text(sb)==rec['source']==a['source'],rec['label']
    assert src['winner']=='contender' and a['champion']==src['contender'] and a['set_at']==src['start']['number'],rec['label']
    assert a['set_ppm']==min(max(src['geomean_ppm'],fl),M-1),rec['label']
    obj={'type':'adopt','v':1,'champion':side_obj(a['champion']),'source':Link(cid_bytes(sb)),
         'from':ss58_decode(a['from']),'set_ppm':a['set_ppm'],'set_at':a['set_at']}
    b=enc(obj)
    assert b.hex()==rec['cbor'] and cid_text(b)==rec['cid'],rec['label']
print('adopt ok')
