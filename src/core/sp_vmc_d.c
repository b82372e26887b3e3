/* The CPU VMC engine in double precision (see sp_vmc_walkers.inc). */
#include "sp_optimize.h" /* before any other code: keeps the hot loops optimised */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_vmc.h"

#define SP_REAL double

#include "sp_vmc_walkers.inc"
