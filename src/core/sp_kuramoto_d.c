/* The CPU Kuramoto engine in double precision (see sp_kuramoto_systems.inc). */
#include "sp_optimize.h" /* before any other code: keeps the hot loops optimised */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_kuramoto.h"

#define SP_REAL double
#include "sp_kuramoto_systems.inc"
