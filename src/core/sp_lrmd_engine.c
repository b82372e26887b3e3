/* The CPU long-range MD engine in both precisions: its loop
 * (sp_lrmd_engine.inc) compiled once with single ("mixed") pair terms (the _f
 * functions) and once in double (_d), in this one file. */
#include "sp_optimize.h" /* before any other code: keeps the hot loops optimised */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_lrmd.h"

#define SP_REAL float
#define SP_REAL_SINGLE 1
#include "sp_lrmd_engine.inc"
#undef SP_REAL
#undef SP_REAL_SINGLE

#define SP_REAL double
#include "sp_lrmd_engine.inc"
