/* The CPU AMS engine in double precision (see sp_ams_engine.inc). */
#include "sp_optimize.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_ams.h"
#include "sp_error.h"

#define SP_REAL double

#include "sp_ams_engine.inc"
