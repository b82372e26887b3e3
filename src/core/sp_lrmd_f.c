/* The CPU long-range MD engine with single ("mixed") pair terms (see sp_lrmd_engine.inc). */
#include "sp_optimize.h" /* before any other code: keeps the hot loops optimised */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_lrmd.h"

#define SP_REAL float
#define SP_REAL_SINGLE 1
#include "sp_lrmd_engine.inc"
