# Shares of JFR CPU samples by the innermost Sluice frame (docs/percall-figures.md):
#   jfr print --json --stack-depth 64 --events jdk.ExecutionSample app.jfr > cpu.json
#   python3 benchmarks/jfr-sluice-frames.py cpu.json
# Frames that only hand over to the HTTP library are not counted as Sluice's own work.
import json,sys,collections
d=json.load(open(sys.argv[1]))
ev=d['recording']['events']
HAND=('JdkHttpTransport.send','OkHttpTransport.send','ObservedSource.read','JdkHttpTransport.sendAsync')
tot=0;own=0;top=collections.Counter();incl=collections.Counter()
for e in ev:
    st=e['values'].get('stackTrace')
    if not st: continue
    names=[f['method']['type']['name'].replace('/','.')+'.'+f['method']['name'] for f in st['frames']]
    tot+=1
    inner=None
    for n in names:
        if n.startswith('dev.sluice') and 'benchmarks' not in n:
            inner=n;break
    if inner is None or inner.endswith(HAND): continue
    own+=1
    top[inner.replace('dev.sluice.','')]+=1
    seen=set()
    for n in names:
        if n.startswith('dev.sluice') and 'benchmarks' not in n:
            k=n.replace('dev.sluice.','')
            if k not in seen: seen.add(k); incl[k]+=1
print('samples',tot,'sluice own',own,'%.1f%%'%(100*own/tot))
for k,c in top.most_common(15): print('| %.1f %% | `%s` |'%(100*c/tot,k))
print('--- inclusive')
for k,c in incl.most_common(25): print('%5.1f%%  %s'%(100*c/tot,k))
