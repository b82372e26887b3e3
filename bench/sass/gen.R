# The declared washboard's generated header (escape_times() on the declared
# engine, R/escape-declared.R) and the NVRTC options the package gives both
# kernels, from the installed package:  Rscript gen.R <dir>
suppressPackageStartupMessages(library(statphysgpu))
ns <- asNamespace("statphysgpu")
d <- commandArgs(TRUE)[1]
writeLines(ns$escape_declared_model(FALSE)$code, file.path(d, "sde_model.h"))
for (prec in c("single", "double")) {
  writeLines(ns$sde_gpu_variant(prec, "srk2")$defines, file.path(d, sprintf("sde_%s.defines", prec)))
  ev <- ns$gpu_kernel_registry()$escape$variants[[paste0(prec, "_srk2_fixed")]]
  writeLines(ev$defines, file.path(d, sprintf("esc_%s.defines", prec)))
}
