# Registers, spills and stack of the generic SDE kernels (sde.cu) for the
# washboard model of bench/sde.R and a Lorenz model, beside escape.cu's
# single-precision kernels, as NVRTC's ptxas reports them; with an output
# folder, the PTX of each variant is written there too (to compare the
# inner step loops).  No GPU needed.
#   Rscript bench/sde-registers.R [arch] [ptx-folder]     (sm_90)
suppressPackageStartupMessages(library(statphysgpu))
a <- commandArgs(TRUE)
arch <- if (length(a) >= 1) a[1] else "sm_90"
ptx_dir <- if (length(a) >= 2) a[2] else ""
options(statphysgpu.cache_dir = tempfile("sdereg"))
sp <- asNamespace("statphysgpu")
gamma <- 0.5
models <- list(
  washboard = sde_model(
    drift = list(x = ~ v, v = ~ -beta * v + V0 * (gamma - sin(x))),
    noise = list(v = ~ sqrt(2 * beta * theta)),
    params = c(beta = 0.2, V0 = 1, gamma = gamma, theta = 0.1),
    stop = ~ x > pi - asin(gamma),
    observe = list(energy = ~ v^2 / 2 - V0 * (cos(x) + gamma * x)), name = "washboard"),
  lorenz = sde_model(drift = list(x = ~ sigma * (y - x), y = ~ x * (rho - z) - y,
                                  z = ~ x * y - b * z),
                     noise = list(x = ~ eps, y = ~ eps, z = ~ eps),
                     params = c(sigma = 10, rho = 28, b = 8 / 3, eps = 0.5), name = "lorenz"))
parse_log <- function(log, what) {
  rows <- list(); entry <- NA_character_; spill <- 0L; stack <- 0L
  for (l in strsplit(log, "\n")[[1]]) {
    if (grepl("Compiling entry function", l)) entry <- sub("^[^']*'([^']*)'.*", "\\1", l)
    if (grepl("bytes stack frame", l)) {
      stack <- as.integer(sub("^[^0-9]*([0-9]+) bytes stack frame.*", "\\1", l))
      spill <- as.integer(sub(".* ([0-9]+) bytes spill stores.*", "\\1", l))
    }
    if (grepl("Used [0-9]+ registers", l)) {
      rows[[length(rows) + 1]] <- data.frame(
        variant = what, kernel = entry,
        registers = as.integer(sub(".*Used ([0-9]+) registers.*", "\\1", l)),
        stack_bytes = stack, spill_store_bytes = spill)
      spill <- 0L; stack <- 0L
    }
  }
  do.call(rbind, rows)
}
rows <- list()
compile <- function(file, opts, what, headers = NULL) {
  r <- sp$nvrtc_compile(file, c(opts, "--ptxas-options=-v"), TRUE, headers = headers)
  if (!r$ok) stop(what, ": ", r$error, "\n", r$log)
  rows[[length(rows) + 1]] <<- parse_log(r$log, what)
  if (nzchar(ptx_dir)) {
    p <- sp$nvrtc_compile(file, opts, FALSE, headers = headers)
    dir.create(ptx_dir, showWarnings = FALSE, recursive = TRUE)
    writeBin(p$image, file.path(ptx_dir, paste0(gsub("[^A-Za-z0-9]+", "_", what), ".ptx")))
  }
}
for (nm in names(models)) {
  m <- models[[nm]]
  for (prec in c("single", "double")) for (meth in c("euler", "srk2")) {
    for (fast in if (prec == "single") c(FALSE, TRUE) else FALSE) {
      old <- options(statphysgpu.sde_fast_math = fast)
      v <- sp$sde_gpu_variant(prec, meth)
      options(old)
      compile(file.path(sp$cuda_source_dir(), "sde.cu"), sp$nvrtc_options(arch, v, FALSE),
              sprintf("%s %s %s%s", nm, prec, meth, if (fast) " hardware sine (default)" else " polynomial sine"),
              headers = sp$sde_gpu_headers(m, list()))
    }
  }
}
reg <- sp$gpu_kernel_registry()$escape
for (v in c("single_euler_fixed", "single_srk2_fixed"))
  compile(file.path(sp$cuda_source_dir(), reg$file), sp$nvrtc_options(arch, reg$variants[[v]], FALSE),
          paste("escape", v))
x <- do.call(rbind, rows)
cat(sprintf("sde.cu and escape.cu, %s (NVRTC)\n", arch))
print(x[!grepl("compact|start", x$kernel), ], row.names = FALSE)
