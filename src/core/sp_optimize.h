/* Included first by the files that hold the engines' hot loops.
 *
 * The lane loops are written to be vectorised by the compiler; unoptimised
 * they run some 30 times slower (measured: 17.5 s against 0.56 s for one
 * CPU escape benchmark).  Debug builds (pkgload / devtools::load_all() pass
 * -O0, as may a user's ~/.R/Makevars) would make every simulation and the
 * test suite crawl, so with GCC these files stay optimised whatever the
 * flags.  Optimised builds are not affected (__OPTIMIZE__ is defined). */
#ifndef SP_OPTIMIZE_H
#define SP_OPTIMIZE_H
#if defined(__GNUC__) && !defined(__clang__) && !defined(__OPTIMIZE__)
#  pragma GCC optimize("O2")
#endif
#endif
