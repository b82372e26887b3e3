/* The CPU escape engine in both precisions: its loop (sp_escape_lanes.inc) compiled
 * once in single precision (the _f functions; mixed for VMC) and once in
 * double (_d), in this one file. */
#include "sp_optimize.h" /* before any other code: keeps the hot loops optimised */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_threads.h"
#include "sp_escape.h"

#define SP_ESC_W 16

#define SP_REAL float
#define SP_REAL_SINGLE 1
#include "sp_escape_lanes.inc"
#undef SP_REAL
#undef SP_REAL_SINGLE

#define SP_REAL double
#include "sp_escape_lanes.inc"
