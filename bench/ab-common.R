# What the same-machine comparisons of two builds (bench/*-ab.R) share:
# they run once with SP_LIB set to the library of an older build (installed
# by bench/device.sh's stage old:<commit>) and once without (the installed
# build of this tree), alternately (device.sh's stage ab:<script>:<commit>:<k>).
#
#   label         SP_LABEL, else the library's folder name, else "installed"
#   reps          SP_AB_REPS, else the script's default `ab_reps`
#   dev           the first GPU's name
#   ab_row(...)   one measurement: "ab <label> <sprintf(...)> [device, time]"
ab_lib <- Sys.getenv("SP_LIB")
label <- Sys.getenv("SP_LABEL", if (nzchar(ab_lib)) basename(ab_lib) else "installed")
reps <- as.integer(Sys.getenv("SP_AB_REPS", ab_reps))
if (nzchar(ab_lib)) {
  suppressPackageStartupMessages(library(statphysgpu, lib.loc = ab_lib))
} else {
  suppressPackageStartupMessages(library(statphysgpu))
}
stopifnot(any(sp_backends()$available[sp_backends()$backend == "gpu"]))
dev <- gpu_devices()$name[1]
ab_row <- function(...) {
  cat(sprintf("ab %-10s %s [%s, %s]\n", label, sprintf(...), dev,
              format(Sys.time(), "%Y-%m-%d %H:%M:%S")))
}
