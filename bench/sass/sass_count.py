import re, sys, collections
from sass_unk import parse_cuobj
UNK = {0x836:'VIADD', 0xc36:'VIADD', 0x848:'VIMNMX', 0x248:'VIMNMX', 0x446:'UNK446'}
FMA = {'FFMA','FMUL','FADD','HFMA2','FSWZADD'}
ALU = {'LOP3','IADD3','ISETP','FSETP','FMNMX','SEL','FSEL','SHF','PLOP3','LEA','PRMT','MOV','IABS','FLO','POPC','BREV','P2R','R2P','VOTE','CS2R','IMNMX','I2FP','F2FP','VIADD','VIMNMX','UNK446'}
DP = {'DADD','DMUL','DFMA','DSETP','DMNMX'}
XU = {'MUFU','F2I','I2F','F2F','FRND'}
MEM = {'LDG','STG','LDC','LDS','STS','ATOMG','REDG','LDL','STL','SHFL','ATOM','RED','S2R','S2UR'}
CTL = {'BRA','BSSY','BSYNC','EXIT','CALL','RET','YIELD','WARPSYNC','NOP','BAR'}
def pipe(op):
    b = op.split('.')[0]
    if b.startswith('U') or b == 'VOTEU': return 'uniform'
    if b == 'IMAD' and ('WIDE' in op or '.HI' in op): return 'imad_wide/hi'
    if b == 'IMAD': return 'imad'
    if b in FMA: return 'fp32'
    if b in DP: return 'fp64'
    if b in ALU: return 'alu'
    if b in XU: return 'xu'
    if b in MEM: return 'mem'
    if b in CTL: return 'ctl'
    return 'other:' + b
def load(path, kernel):
    d = parse_cuobj(path)[kernel]
    ins = []
    for a, t, lo in d:
        if t is None:
            t = UNK.get(lo & 0xfff, 'UNK%03x' % (lo & 0xfff)) + ' (undecoded)'
        pred = None
        m = re.match(r'^(@!?U?P\w+)\s+(.*)$', t)
        if m: pred, t = m.group(1), m.group(2)
        ins.append(dict(addr=a, pred=pred, op=t.split()[0], txt=t))
    return ins
def select(ins, ranges):
    return [x for x in ins if any(a <= x['addr'] <= b for a, b in ranges)]
def report(name, sel, per, unit='macro-step'):
    c = collections.Counter(pipe(x['op']) for x in sel)
    o = collections.Counter(x['op'].split('.')[0] if not x['op'].startswith('MUFU') else x['op'] for x in sel)
    n = len(sel)
    print(f"== {name}: {n} instructions over {per} {unit}s = {n/per:.2f} per {unit}")
    print("   pipes:", ", ".join(f"{k} {v/per:.2f}" for k, v in sorted(c.items(), key=lambda kv: -kv[1])))
    print("   opcodes:", ", ".join(f"{k} {v/per:.2f}" for k, v in sorted(o.items(), key=lambda kv: -kv[1])))
    return c, o
