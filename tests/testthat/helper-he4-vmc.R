# A one-condition he4_vmc() call whose walkers draw the Philox streams of
# condition `cond` of a sweep: the engine's walker0 moved by (cond - 1) 2^40
# (sp_stream_replica(): condition c's walker w is stream c 2^40 + w, and
# `first_replica` stops at 2^40), i.e. the launch the GPU engine made for
# that condition alone before one launch ran every condition.  The start
# must draw no random numbers (n = 4 k^3 atoms: an fcc lattice); the
# result's `replica` column is that of the one-condition call.
vmc_as_condition <- function(cond, ...) {
  ns <- asNamespace("statphysgpu")
  real <- get("sim_run", envir = ns)
  shifted <- function(frame, entry, ..., walker0, envir = parent.frame()) {
    # walker0: the c(lo, hi) 32-bit halves of check_u64(); 2^40 = 2^8 in hi
    real(frame, entry, ..., walker0 = walker0 + c(0, (cond - 1) * 2^8), envir = envir)
  }
  utils::assignInNamespace("sim_run", shifted, ns)
  on.exit(utils::assignInNamespace("sim_run", real, ns))
  he4_vmc(...)
}
