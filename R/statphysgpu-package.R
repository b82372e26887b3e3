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
#' @useDynLib statphysgpu, .registration = TRUE, .fixes = "C_"
#' @importFrom cli cli_progress_bar
#' @keywords internal
"_PACKAGE"
