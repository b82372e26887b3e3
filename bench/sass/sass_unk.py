import re, sys, collections
def parse_cuobj(path):
    """Return {kernel: [(addr, text_or_None, lo64)]} with unknowns filled."""
    out = {}; cur = None; last = None; hexq = []
    lines = open(path).read().split('\n')
    for l in lines:
        m = re.match(r'\s*Function : (\S+)', l)
        if m: cur = m.group(1); out[cur] = []; continue
        if cur is None: continue
        m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* (0x[0-9a-f]{16}) \*/', l)
        if m:
            out[cur].append([int(m.group(1),16), m.group(2).strip(), int(m.group(3),16)])
            hexq = [1]; continue
        m = re.match(r'\s*/\* (0x[0-9a-f]{16}) \*/\s*$', l)
        if m and out[cur]:
            hexq.append(int(m.group(1),16))
            if len(hexq) == 3:  # third hex word: start of an unknown instruction
                a = out[cur][-1][0] + 16 * (1 + sum(1 for x in out[cur] if False))
                out[cur].append([None, None, int(m.group(1),16)])
            elif len(hexq) > 3 and len(hexq) % 2 == 1:
                out[cur].append([None, None, int(m.group(1),16)])
    # fix addresses
    for k, v in out.items():
        for i, x in enumerate(v):
            if x[0] is None: x[0] = v[i-1][0] + 16
    return out
if __name__ == '__main__':
    for f in sys.argv[1:]:
        d = parse_cuobj(f)
        c = collections.Counter()
        for k, v in d.items():
            for a, t, lo in v:
                if t is None: c[hex(lo & 0xfff)] += 1
        print(f, dict(c))
