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

/* The lane loops of the CPU engines are compiled for AVX-512 and AVX2 as
 * well as the baseline, and the best version for the processor is picked
 * when the package loads (GCC's function multiversioning; x86-64 Linux).
 * The clones round the same operations, except that AVX2 and AVX-512
 * contract a*b + c into fused multiply-adds: results are identical for any
 * thread count or chunking on one machine, and agree to rounding across
 * machines. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) && \
    __GNUC__ >= 11 && !defined(SP_NO_CLONES)
#  define SP_LANE_CLONES \
     __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#  define SP_LANE_CLONES
#endif
#endif
