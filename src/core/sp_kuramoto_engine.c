/* The CPU Kuramoto engine in both precisions: its loop (sp_kuramoto_systems.inc) compiled
 * once in single precision (the _f functions; mixed for VMC) and once in
 * double (_d), in this one file. */
#include "sp_optimize.h" /* before any other code: keeps the hot loops optimised */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_threads.h"
#include "sp_kuramoto.h"


#define SP_REAL float
#define SP_REAL_SINGLE 1
#include "sp_kuramoto_systems.inc"
#undef SP_REAL
#undef SP_REAL_SINGLE

#define SP_REAL double
#include "sp_kuramoto_systems.inc"
