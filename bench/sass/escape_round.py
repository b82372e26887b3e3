"""escape.cu's sp_escape_kernel (SRK2, fixed bias, start at rest): the common
path of one round of its step loop (two macro-steps of four steps: no path
ends, no new path taken), from hand-picked address ranges of the current
build's SASS (CUDA 13.0 ptxas, sm_90).  The ranges are build-specific: after
a change of escape.cu or of the compiler, read the CFG again
(python3 sass_cfg.py <nvdisasm text> sp_escape_kernel) and edit them.
  python3 escape_round.py <dir>   (esc_single.cuobj, esc_double.cuobj, .nvd)"""
import sys, os
from sass_count import load, report
from passage_double import count as count_cold
H = lambda s: int(s, 16)
d = sys.argv[1] if len(sys.argv) > 1 else '.'
ins = load(os.path.join(d, 'esc_single.cuobj'), 'sp_escape_kernel')
single = [(H('1140'), H('1180')), (H('2520'), H('3410')), (H('3520'), H('3680')),
          (H('4050'), H('4ee0')), (H('4ff0'), H('5130')), (H('5ab0'), H('5af0'))]
report('escape.cu single srk2, one round', [x for x in ins if any(a <= x['addr'] <= b for a, b in single)], 2)
double = [(H('26e0'), H('26e0')), (H('5020'), H('8aa0')), (H('8f90'), H('90f0')),
          (H('99b0'), H('d3c0')), (H('d890'), H('d9f0')), (H('e270'), H('e280'))]
report('escape.cu double srk2, one round (cold blocks of sin/log/sqrt left out)',
       count_cold(os.path.join(d, 'esc_double.nvd'), 'sp_escape_kernel', os.path.join(d, 'esc_double.cuobj'), double), 2)
