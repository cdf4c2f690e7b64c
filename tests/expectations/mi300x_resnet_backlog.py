#!/usr/bin/env python3
"""Independent check of the communication stake on tests/data/real/mi300x-resnet-ddp-train (issue #45;
mi300x-resnet-ddp-train.md). Standard library only (json, gzip, decimal), no perfcard code.
Prints: the GPU ops no traced call launched (the work queued before the capture) and where they run;
then, per window, the RCCL time (union of the RCCL kernels clipped to it) and its exposed part (no
other op running beside it), against all other GPU ops (kernels, copies, memsets) and against the
other kernels only. Windows: the whole capture (what dividing the capture by 3 steps gave), and the
GPU periods: step 15 from its first op, then from the previous step's GPU end to this one's.
Usage: mi300x_resnet_backlog.py (run from the project root)."""
import gzip, json
from decimal import Decimal
ev = json.load(gzip.open('tests/data/real/mi300x-resnet-ddp-train/resnet_act_checkpoint.json.gz','rt'), parse_float=Decimal)['traceEvents']
ns = lambda x: int(Decimal(x)*1000)
X=[e for e in ev if e.get('ph')=='X']
calls={e['args']['correlation']:ns(e['ts']) for e in X if e.get('cat')=='cuda_runtime' and 'correlation' in e.get('args',{})}
steps=sorted((ns(e['ts']),ns(e['ts'])+ns(e['dur'])) for e in X if e.get('cat')=='user_annotation' and e['name'].startswith('ProfilerStep#'))
ops=[(ns(e['ts']),ns(e['ts'])+ns(e['dur']),e['cat'],e['name'].lower(),calls.get(e['args'].get('correlation'))) for e in X if e.get('cat') in ('kernel','gpu_memcpy','gpu_memset')]
unl=[o for o in ops if o[4] is None]
print('unlinked ops', len(unl), 'from', unl and min(o[0] for o in unl)-steps[0][0], 'to', max(o[1] for o in unl)-steps[0][0], 'ns after step 15 start')
G=[max(o[1] for o in ops if o[4] is not None and a<=o[4]<b) for a,b in steps]
F0=min(o[0] for o in ops if o[4] is not None and steps[0][0]<=o[4]<steps[0][1])
win=[(F0,G[0]),(G[0],G[1]),(G[1],G[2])]
def U(iv):
    out=[]
    for a,b in sorted(iv):
        if out and a<=out[-1][1]: out[-1][1]=max(out[-1][1],b)
        else: out.append([a,b])
    return out
def L(u): return sum(b-a for a,b in u)
def inter(u,v):
    return sum(max(0,min(b,d)-max(a,c)) for a,b in u for c,d in v)
iscomm=lambda n: 'nccl' in n or 'rccl' in n
for label,ws,we,bl in [('whole capture per step /3',steps[0][0],G[2],None)]+[('period',a,b,None) for a,b in win]:
    clip=[(max(o[0],ws),min(o[1],we),o) for o in ops if o[1]>ws and o[0]<we]
    cu=U([(a,b) for a,b,o in clip if iscomm(o[3])])
    oa=U([(a,b) for a,b,o in clip if not iscomm(o[3])])
    ok=U([(a,b) for a,b,o in clip if not iscomm(o[3]) and o[2]=='kernel'])
    print('%-26s %.3f ms: comm %.3f exposed vs all ops %.3f, vs kernels only %.3f' % (label,(we-ws)/1e6,L(cu)/1e6,(L(cu)-inter(cu,oa))/1e6,(L(cu)-inter(cu,ok))/1e6))
