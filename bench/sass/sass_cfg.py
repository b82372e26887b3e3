import re, sys, collections
def parse(path, kernel):
    lines = open(path).read().split('\n')
    ins = []; labels = {}; on = False
    for l in lines:
        if re.match(r'^%s:$' % kernel, l): on = True; continue
        if on and re.match(r'^\s*\.section', l) and ins: break
        if not on: continue
        m = re.match(r'^(\.L_x_\d+):', l)
        if m: labels[m.group(1)] = len(ins); continue
        m = re.match(r'^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;', l)
        if m:
            addr = int(m.group(1), 16); txt = m.group(2).strip()
            pred = None
            mm = re.match(r'^(@!?U?P\w+)\s+(.*)$', txt)
            if mm: pred, txt = mm.group(1), mm.group(2)
            op = txt.split()[0]
            ins.append(dict(addr=addr, pred=pred, op=op, txt=txt))
    return ins, labels
def klass(op):
    base = op.split('.')[0]
    return base
if __name__ == '__main__':
    path, kernel = sys.argv[1], sys.argv[2]
    ins, labels = parse(path, kernel)
    # block starts
    starts = set([0]) | set(labels.values())
    for i, x in enumerate(ins):
        if x['op'].split('.')[0] in ('BRA','EXIT','RET','CALL','BRX','JMP') and i+1 < len(ins): starts.add(i+1)
    starts = sorted(starts)
    inv = {v:k for k,v in labels.items()}
    starts = [s for s in starts if s < len(ins)]
    for bi, s in enumerate(starts):
        e = starts[bi+1] if bi+1 < len(starts) else len(ins)
        blk = ins[s:e]
        c = collections.Counter(x['op'].split('.')[0] for x in blk)
        mufu = collections.Counter(x['op'] for x in blk if x['op'].startswith('MUFU'))
        last = blk[-1]['txt'] if blk else ''
        br = [ (x['pred'] or '') + ' ' + x['txt'] for x in blk if x['op'].split('.')[0] in ('BRA','EXIT','CALL','BSYNC','WARPSYNC','BSSY')]
        print(f"{inv.get(s,'-'):10s} {ins[s]['addr']:05x} n={e-s:4d} mufu={dict(mufu)} {'; '.join(br)[:150]}")
