/* The CPU AMS engine in both precisions: its loop (sp_ams_engine.inc)
 * compiled once in single precision (_f) and once in double (_d). */
#include "sp_optimize.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_ams.h"
#include "sp_error.h"

#define SP_REAL float
#define SP_REAL_SINGLE 1
#include "sp_ams_engine.inc"
#undef SP_REAL
#undef SP_REAL_SINGLE

#define SP_REAL double
#include "sp_ams_engine.inc"
