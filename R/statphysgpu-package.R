#' statphysgpu: stochastic statistical-physics ensembles on GPUs and CPUs
#'
#' Runs millions of stochastic replicas (escape times, switching currents,
#' and more) on NVIDIA GPUs through kernels compiled at run time with NVRTC,
#' or on CPU cores with the same model code and the same Philox random
#' streams, and returns samples with the statistics to analyse them.
#'
#' Start with [sp_backends()] to see what this machine offers, and
#' [philox_uniform()] for the random streams everything is built on.
#'
#' @section Interrupts, errors and warnings:
#' Every simulator follows one rule for Ctrl-C: once its run has started,
#' an interrupt stops it after the round in flight and the call returns
#' what finished, flagged (`attr(x, "interrupted")`) with a warning of
#' class `statphysgpu_interrupted` -- never an error and never a lost
#' result, also when the key is pressed while the progress bar is drawn or
#' twice. A Ctrl-C after the last round (while the result is assembled)
#' leaves the complete result, with a warning of class
#' `statphysgpu_late_interrupt`. Before the run starts (argument checks,
#' kernel compilation) Ctrl-C interrupts as anywhere in R.
#'
#' Errors have class `statphysgpu_error`. A state that turns non-finite
#' (NaN or infinite: a step too large for the dynamics, parameters that
#' overflow) is an error of class `statphysgpu_not_finite` naming the
#' replica, the quantity and the step, on the CPU and the GPU alike: the
#' engines check their state at the end of every round and never return
#' non-finite values as data. Warnings about the time step have class
#' `statphysgpu_step_warning`. A time limit (`setTimeLimit()`) is an error.
#'
#' @section Timing:
#' `attr(x, "seconds")` of a result is the engine's own time: the wall time
#' of its rounds (kernel launches to their results on the GPU, the
#' threads' rounds on the CPU). It leaves out what every call pays once:
#' argument checks, kernel loading, device allocations, uploads, start
#' states drawn by the engine, the copy of the results into R and their
#' assembly. A call's fixed cost is measured as the intercept of the whole
#' call's time at two run lengths (`bench/whole-call.R` in the sources).
#'
#' @useDynLib statphysgpu, .registration = TRUE, .fixes = "C_"
#' @importFrom cli cli_progress_bar
#' @keywords internal
"_PACKAGE"
