/* sp_precision.h: names in the working precision, for the headers and loops
 * that are compiled once per precision (the CPU engines include their loop
 * twice in one file; a kernel variant includes its header once).
 *
 * Define SP_REAL to float (with SP_REAL_SINGLE) or double before including;
 * SP_PREC(name) is then name_f or name_d, so both precisions live in one
 * program.  Include again after changing SP_REAL_SINGLE: the macro follows.
 * This is the one copy of the package's name mangling. */
#ifndef SP_CAT
#  define SP_CAT_(a, b) a##b
#  define SP_CAT(a, b) SP_CAT_(a, b)
#endif

#undef SP_PREC
#ifdef SP_REAL_SINGLE
#  define SP_PREC(name) SP_CAT(name, _f)
#else
#  define SP_PREC(name) SP_CAT(name, _d)
#endif
/* The copy of a user model compiled for the CPU's vector loop (SP_PREC_LANE,
 * sde_cpu.h): name_fl or name_dl, SP_LANE(name) in the scalar copy.  The
 * GPU's second copy for its fast macro-steps (SP_PREC_LANE with
 * SP_PREC_BARE, sde.cu: the bare hardware sine): name_fb or name_db,
 * SP_BARE(name). */
#undef SP_LANE
#undef SP_BARE
#define SP_LANE(name) SP_CAT(SP_PREC(name), l)
#define SP_BARE(name) SP_CAT(SP_PREC(name), b)
#ifdef SP_PREC_LANE
#  undef SP_PREC
#  ifdef SP_PREC_BARE
#    ifdef SP_REAL_SINGLE
#      define SP_PREC(name) SP_CAT(name, _fb)
#    else
#      define SP_PREC(name) SP_CAT(name, _db)
#    endif
#  elif defined(SP_REAL_SINGLE)
#    define SP_PREC(name) SP_CAT(name, _fl)
#  else
#    define SP_PREC(name) SP_CAT(name, _dl)
#  endif
#endif
