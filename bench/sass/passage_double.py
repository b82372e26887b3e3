"""Common-path counts in double precision: the blocks of given address ranges less the cold
ones (a CALL, the moves right after one, the argument-is-infinite blocks of sin/cos (DMUL by
RZ), the frac division of a crossing)."""
import sys, re
from sass_count import load, report
from sass_cfg import parse
def blocks_of(nvd, kernel, cuobj):
    ins = load(cuobj, kernel)
    nins, labels = parse(nvd, kernel)
    lab_addr = {nins[i]['addr'] if i < len(nins) else None for i in labels.values()}
    starts = set()
    for i, x in enumerate(ins):
        b = x['op'].split('.')[0]
        if x['addr'] in lab_addr: starts.add(i)
        if b in ('BRA', 'EXIT', 'CALL', 'RET') and i + 1 < len(ins): starts.add(i + 1)
    starts = sorted(starts | {0})
    return [ins[a:b] for a, b in zip(starts, starts[1:] + [len(ins)])]
def cold(blk, prev):
    ops = [x['op'] for x in blk]
    if any(o.startswith('CALL') for o in ops): return True
    if prev is not None and any(o.startswith('CALL') for o in [x['op'] for x in prev]) and len(blk) <= 4: return True
    if len(blk) <= 2 and blk[0]['op'] == 'DMUL' and ', RZ, ' in blk[0]['txt']: return True
    return False
def count(nvd, kernel, cuobj, ranges, extra_cold=()):
    bl = blocks_of(nvd, kernel, cuobj)
    sel = []
    prev = None
    for blk in bl:
        a = blk[0]['addr']
        if any(lo <= a <= hi for lo, hi in ranges) and not cold(blk, prev) and a not in extra_cold:
            sel += blk
        prev = blk
    return sel
import collections
def tgt_of(x):
    m = re.search(r'BRA (?:!?U?P\d, )?0x([0-9a-f]+)', x['txt'])
    return int(m.group(1), 16) if m else None
def chunk_double(cuobj, nvd):
    ins = load(cuobj, 'sp_sde_passage_kernel')
    n = len(ins)
    h = next(i for i, x in enumerate(ins) if x['op'] == 'LOP3.LUT' and ', 0xf, RZ, 0xc0' in x['txt'])
    while h > 0 and not (ins[h-1]['op'].split('.')[0] in ('BRA', 'BSYNC')): h -= 1
    if ins[h-1]['op'].startswith('BSYNC'): h -= 1
    c = n
    tg = collections.Counter(tgt_of(ins[i]) for i in range(h, c) if ins[i]['op'] == 'BRA' and ins[i]['pred'] and tgt_of(ins[i]) is not None)
    # the join of the flagged macro-steps: targeted once a macro-step (4 times), past the region
    join = min(a for a in tg if a > ins[h]['addr'] and tg[a] >= 3)
    lt = next(i for i in range(n) if ins[i]['op'] == 'BRA' and ins[i]['pred'] and tgt_of(ins[i]) is not None
              and tgt_of(ins[i]) < ins[h]['addr'] and ins[i]['addr'] > join and re.match(r'P\d, ', ins[i]['txt'][4:]))
    ls = lt
    while not ins[ls-1]['op'].startswith('BSYNC'): ls -= 1
    while ins[ls-1]['op'].startswith('BSYNC'): ls -= 1
    head = tgt_of(ins[lt])
    hi = next(i for i, x in enumerate(ins) if x['addr'] == head)
    he = hi
    while not ins[he]['op'].startswith('BRA'): he += 1
    # the region ends at the last macro-step's branch: what falls into the join after it runs
    # only when that macro-step is flagged
    e = next(i for i in range(h, n) if ins[i]['addr'] == join) - 1
    while not (ins[e]['op'] == 'BRA' and ins[e]['pred']): e -= 1
    ranges = [(head, ins[he]['addr']), (ins[h]['addr'], ins[e]['addr']), (ins[ls]['addr'], ins[lt]['addr'])]
    return count(nvd, 'sp_sde_passage_kernel', cuobj, ranges), ranges
if __name__ == '__main__':
    for t in sys.argv[1:]:
        sel, r = chunk_double(t + '.cuobj', t + '.nvd')
        print([tuple(hex(a) for a in x) for x in r])
        report(t + ' passage double, chunk of 16 steps', sel, 4)
