/* The CPU escape engine in single precision (see sp_escape_lanes.inc). */
#include "sp_optimize.h" /* before any other code: keeps the hot loops optimised */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_escape.h"

#define SP_REAL float
#define SP_REAL_SINGLE 1
#define SP_ESC_W 16
#include "sp_escape_lanes.inc"
