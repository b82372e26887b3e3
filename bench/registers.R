# Registers a thread of each kernel of a package kernel source, per variant,
# as NVRTC's ptxas reports them -- the counts the GPU host loads (a local
# nvcc may give others).  Read them before a device run: the resident
# blocks an SM, and so the pair pass's parts, follow from them.  Runs on
# any machine with the CUDA toolkit (no GPU needed).
#   Rscript bench/registers.R [kernel] [arch]     (escape sm_90)
suppressPackageStartupMessages(library(statphysgpu))
a <- commandArgs(TRUE)
kernel <- if (length(a) >= 1) a[1] else "escape"
arch <- if (length(a) >= 2) a[2] else "sm_90"
reg <- statphysgpu:::gpu_kernel_registry()[[kernel]]
if (is.null(reg)) stop("no kernel '", kernel, "' in the registry")
file <- file.path(statphysgpu:::cuda_source_dir(), reg$file)
rows <- list()
for (v in names(reg$variants)) {
  r <- statphysgpu:::nvrtc_compile(file, c(statphysgpu:::nvrtc_options(arch, reg$variants[[v]],
                                                                         reg$toolkit),
                                           "--ptxas-options=-v"), TRUE)
  if (!r$ok) stop("variant ", v, ": ", r$error, "\n", r$log)
  entry <- NA_character_
  spill <- 0L
  for (l in strsplit(r$log, "\n")[[1]]) {
    if (grepl("Compiling entry function", l)) entry <- sub("^[^']*'([^']*)'.*", "\\1", l)
    if (grepl("bytes spill stores", l))
      spill <- as.integer(sub(".* ([0-9]+) bytes spill stores.*", "\\1", l))
    if (grepl("Used [0-9]+ registers", l)) {
      rows[[length(rows) + 1]] <- data.frame(
        variant = v, kernel = entry,
        registers = as.integer(sub(".*Used ([0-9]+) registers.*", "\\1", l)),
        spill_store_bytes = spill)
      spill <- 0L
    }
  }
}
x <- do.call(rbind, rows)
cat(sprintf("%s.cu, %s (NVRTC)\n", kernel, arch))
print(x, row.names = FALSE)
