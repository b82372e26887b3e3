/* The CPU Kuramoto engine in single precision (see sp_kuramoto_systems.inc). */
#include "sp_optimize.h" /* before any other code: keeps the hot loops optimised */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_kuramoto.h"

#define SP_REAL float
#define SP_REAL_SINGLE 1
#include "sp_kuramoto_systems.inc"
