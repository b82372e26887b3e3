"""Per-chunk common-path count of sp_sde_passage_kernel (single, bare copy).
Region: from the fast-chunk test (LOP3 ... 0xf ... the k % 16 test) to the last
instruction of the last bare macro-step's tail (the branch to the redo or the back edge),
minus the wide copy's blocks (those with the sine's reduction, 0.318309...), plus the loop's
head (from the YIELD block's start to its first branch) and latch (BSYNC + the block whose
branch goes back to the head)."""
import sys, re, collections
from sass_count import load, report
def nv_labels(path):
    lab = {}; pend = []; on = False
    for l in open(path):
        if l.startswith('sp_sde_passage_kernel:'): on = True
        if not on: continue
        m = re.match(r'^(\.L_x_\d+):', l)
        if m: pend.append(m.group(1)); continue
        m = re.match(r'^\s*/\*([0-9a-f]{4,})\*/', l)
        if m:
            for p in pend: lab[p] = int(m.group(1), 16)
            pend = []
    return lab
def blocks(ins):
    starts = {0}
    for i, x in enumerate(ins):
        if x['op'].split('.')[0] in ('BRA','EXIT','CALL','BSYNC','BSSY') or x['pred']:
            pass
    # block boundaries: after any branch, and at branch targets
    tgt = set()
    addr2i = {x['addr']: i for i, x in enumerate(ins)}
    for i, x in enumerate(ins):
        b = x['op'].split('.')[0]
        if b in ('BRA','EXIT','CALL','RET'):
            starts.add(i + 1)
            m = re.search(r'0x([0-9a-f]+)\)?\s*$', x['txt'])
        if b == 'BSYNC': starts.add(i)
    return sorted(s for s in starts if s < len(ins))
def main(path, verbose=False):
    ins = load(path, 'sp_sde_passage_kernel')
    labels = {}
    n = len(ins)
    # chunk test
    h = next(i for i, x in enumerate(ins) if x['op'] == 'LOP3.LUT' and ', 0xf, RZ, 0xc0' in x['txt'])
    # back up to the block start (after the previous BSYNC or branch)
    while h > 0 and not (ins[h-1]['op'].split('.')[0] in ('BRA','BSYNC') ): h -= 1
    # last bare sine block: the fourth group; region end = the last '@... BRA' after the last MUFU.SIN before the sin_big calls
    red = lambda x: '0.31830987' in x['txt']
    # find the first CALL to sp_sin_big after h: the region ends before the scalar path
    c = next(i for i in range(h, n) if ins[i]['op'].startswith('CALL'))
    tg = collections.Counter()
    for i in range(h, c):
        m = re.search(r'BRA (?:!?U?P\d, )?0x([0-9a-f]+)', ins[i]['txt'])
        if m and ins[i]['pred']: tg[int(m.group(1), 16)] += 1
    join = max(tg, key=lambda a: (tg[a], -a))
    e = next(i for i in range(h, n) if ins[i]['addr'] == join) - 1
    # blocks that fall into the join after the last macro-step's branch run only when it is flagged
    while not (ins[e]['op'] == 'BRA' and ins[e]['pred']): e -= 1
    # the region's end: the conditional branch that ends the chunk's last macro-step tail
    # blocks in the region
    st = [h]
    for i in range(h, e + 1):
        b = ins[i]['op'].split('.')[0]
        if i > h and (b == 'BSYNC' or ins[i-1]['op'].split('.')[0] == 'BRA'): st.append(i)
    st.append(e + 1)
    sel = []
    for a, b in zip(st, st[1:]):
        blk = ins[a:b]
        wide = any(red(x) for x in blk)
        if verbose: print(f"  {ins[a]['addr']:05x} n={b-a:4d} {'WIDE (excluded)' if wide else ''}")
        if not wide: sel += blk
    # the head: the block with YIELD, from its start to the first branch
    y = next(i for i, x in enumerate(ins) if x['op'] == 'YIELD')
    ye = y
    while not ins[ye]['op'].startswith('BRA'): ye += 1
    head = None
    # the BSYNC just before the chunk test's block
    pre = [ins[h-1]] if ins[h-1]['op'].startswith('BSYNC') else []
    # latch: the block ending in '@P0 BRA P1' back to the head (search after e for ISETP with UR and BRA P1)
    def tgt_of(x):
        m = re.search(r'BRA (?:!?U?P\d, )?0x([0-9a-f]+)', x['txt'])
        return int(m.group(1), 16) if m else None
    lt = next(i for i in range(e, n) if ins[i]['op'] == 'BRA' and ins[i]['pred'] and tgt_of(ins[i]) is not None and tgt_of(ins[i]) < ins[h]['addr'] and ', 0x' in ins[i]['txt'] and re.match(r'P\d, ', ins[i]['txt'][4:]))
    ls = lt
    while not ins[ls-1]['op'].startswith('BSYNC'): ls -= 1
    # the BSYNCs right before the latch block
    while ins[ls-1]['op'].startswith('BSYNC'): ls -= 1
    latch = ins[ls:lt+1]
    tgt = int(re.search(r'0x([0-9a-f]+)', ins[lt]['txt'].split('BRA')[1]).group(1), 16)
    ys = next(i for i, x in enumerate(ins) if x['addr'] == tgt)
    head = ins[ys:ye+1]
    if verbose:
        print('  head', hex(head[0]['addr']), len(head), 'pre', len(pre), 'latch', hex(latch[0]['addr']), len(latch))
    return head + pre + sel + latch
if __name__ == '__main__':
    v = '-v' in sys.argv
    for p in [a for a in sys.argv[1:] if a != '-v']:
        report(p + ' chunk of 16 steps (bare copy)', main(p, v), 4)
