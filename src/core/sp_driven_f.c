/* The CPU driven Brownian engine in float precision (see sp_driven_lanes.inc). */
#include "sp_optimize.h" /* before any other code: keeps the hot loops optimised */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_driven.h"
#include "sp_error.h"

#define SP_REAL float
#define SP_REAL_SINGLE 1
#define SP_DRV_W 16
#include "sp_driven_lanes.inc"
