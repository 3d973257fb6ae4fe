import json, subprocess, sys, re, difflib, os
from collections import Counter, defaultdict
# usage: python3 benches/stated-corpus/score.py BINARY [OUT_DIR] [CORPUS_DIR]
# Runs `claims check` (text and JSON) on each chapter of a corpus project
# and holds each sentence's reading against the answer key (key.json).
# CORPUS_DIR holds project/ and key.json (default: this script's folder;
# benches/stated-corpus-2 is the second corpus).
HERE = os.path.dirname(os.path.abspath(__file__))
B = os.path.abspath(sys.argv[1])
out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.environ.get('TMPDIR', '/tmp'), 'stated-corpus-eval')
CORPUS = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else HERE
os.makedirs(out, exist_ok=True)
PROJECT = os.path.join(CORPUS, 'project')
BOOK = sorted(os.listdir(os.path.join(PROJECT, 'book-snapshots')))[0]
key = json.load(open(os.path.join(CORPUS, 'key.json')))
norm = lambda s: re.sub(r'[^a-z0-9]+', ' ', s.lower().replace('`', '')).strip()
keyby = defaultdict(list)
for r in key: keyby[r['ch']].append(r)
ORDER = {'DIFFERS': 2, 'AGREES': 1, 'NOT_PRINTED': 0}
totals = Counter(); conf = Counter()
rows = []
for ch in sorted(keyby):
    cid = f'{BOOK}/{ch}'
    txt = subprocess.run([B, 'claims', 'check', cid], cwd=PROJECT, capture_output=True, text=True)
    open(f'{out}/{ch}.txt', 'w').write(txt.stdout + txt.stderr)
    js = subprocess.run([B, 'claims', 'check', cid, '--format', 'json'], cwd=PROJECT, capture_output=True, text=True)
    open(f'{out}/{ch}.json', 'w').write(js.stdout)
    d = json.loads(js.stdout)
    stated = d['notebook']['stated']
    per_sent = {}
    for s in stated:
        k = (s['sentence'], s['source'])
        per_sent.setdefault(k, []).append(s)
    numc = Counter(s['reading'] for s in stated)
    # sentence class
    tool = {}
    for k, lst in per_sent.items():
        cls = max((x['reading'] for x in lst), key=lambda r: ORDER[r])
        tool[k] = (cls, lst)
    # map to key
    kn = {norm(r['text']): r for r in keyby[ch]}
    matched = set()
    tcls = Counter(v[0] for v in tool.values())
    print(f"=== {ch}: tool sentences {len(tool)} {dict(tcls)}; per number {dict(numc)}; key {dict(Counter(r['cls'] for r in keyby[ch]))}")
    for (sent, src), (cls, lst) in tool.items():
        n = norm(sent)
        r = kn.get(n)
        if r is None:
            best = difflib.get_close_matches(n, list(kn), n=1, cutoff=0.6)
            r = kn[best[0]] if best else None
        kc = r['cls'].replace(' ', '_') if r else 'UNKEYED'
        if r: matched.add(norm(r['text']))
        conf[(kc, cls)] += 1
        flag = '' if kc == cls else '  <-- MISMATCH'
        det = '; '.join(f"{x['stated']}:{x['reading'][0]}" + (f"[{x.get('cell')} `{x.get('line')}`]" if x['reading'] != 'NOT_PRINTED' else '') for x in lst)
        if flag or cls != 'NOT_PRINTED':
            print(f"  key={kc:11} tool={cls:11} {src:28} {sent[:90]!r}\n      {det}{flag}" + (f"  PLANTED {r['planted']}" if r and r['planted'] else ''))
    for r in keyby[ch]:
        if norm(r['text']) not in matched:
            kc = r['cls'].replace(' ', '_')
            conf[(kc, 'NOT_SEEN')] += 1
            print(f"  key={kc:11} tool=NOT_SEEN    {r['where']:28} {r['text'][:90]!r}" + (f"  PLANTED {r['planted']}" if r['planted'] else ''))
print('\nconfusion (key -> tool):')
for k, v in sorted(conf.items()): print(f'  {k[0]:12} -> {k[1]:12} {v}')
