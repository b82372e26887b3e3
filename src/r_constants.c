/* r_constants.c: the engines' limits that R needs, read from the C headers
 * that define them, so that R cannot drift from C. */
#include "r_util.h"

#include "xorsat_args.h" /* inst/cuda: SP_XS_* */
#include "xorsat.h"      /* SP_XORSAT_WORD_BITS, SP_XORSAT_P16_ONE, SP_XORSAT_MAX_CONDITIONS */

/* 3-XORSAT (xorsat_limits() in R/xorsat-qg.R): the largest instance of the
 * GPU kernel, the clones of a word (the bits of a word of multi-spin
 * coding), the words of a run, the spins of an independent set, the value
 * of a per-clone p1 of one (sp_xorsat_p16: p1 in its units), and the
 * conditions (values of p1) of a call. */
SEXP sp_r_xorsat_limits(void) {
  static const char *const names[] = {"gpu_max_n", "word_clones", "max_words", "set_max",
                                      "p16_one", "max_conditions"};
  const double v[] = {SP_XS_MAX_N, 8.0 * sizeof(uint32_t),
                      (double)((uint64_t)1 << SP_XORSAT_WORD_BITS), SP_XS_SET_MAX,
                      SP_XORSAT_P16_ONE, SP_XORSAT_MAX_CONDITIONS};
  return sp_r_named_reals(names, v, (int)(sizeof v / sizeof v[0]));
}
