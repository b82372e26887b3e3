/* The CPU AMS engine in single precision (see sp_ams_engine.inc). */
#include "sp_optimize.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_ams.h"
#include "sp_error.h"

#define SP_REAL float
#define SP_REAL_SINGLE 1
#include "sp_ams_engine.inc"
