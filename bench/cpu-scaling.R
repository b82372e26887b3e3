# Benchmark: how the CPU escape engine scales over threads, and why.
#
#   gcc -O2 -fopenmp -march=native bench/cpu_probe.c -o /tmp/cpu_probe
#   SP_COMMIT=$(git rev-parse --short HEAD) SP_PROBE=/tmp/cpu_probe Rscript bench/cpu-scaling.R
#
# Useful Euler steps/s of escape_times(backend = "cpu") at 1, 2, 4, ...
# threads with the same work per thread (weak scaling), and the efficiency
# rate(n) / (n * rate(1)).  Target (issue "Escape times"): near-linear.
# The probe (bench/cpu_probe.c) then tells a falling clock from logical CPUs
# that share a core, and the CPU topology is printed as the OS reports it.
suppressPackageStartupMessages(library(statphysgpu))
commit <- Sys.getenv("SP_COMMIT", "unknown")
date <- format(Sys.time(), "%Y-%m-%d %H:%M %Z")
cpu <- sub("^\\s+", "", system("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2", intern = TRUE))
cat(sprintf("device: %s; commit %s; %s\n", cpu, commit, date))
cat(system("lscpu | grep -E '^(CPU\\(s\\)|Thread|Core|Socket|NUMA node\\(s\\)|Model name|Hypervisor|Flags)' | cut -c1-120",
           intern = TRUE), sep = "\n")
sib <- "/sys/devices/system/cpu/cpu0/topology/thread_siblings_list"
if (file.exists(sib)) cat("cpu0 thread siblings:", readLines(sib), "\n")

V0 <- 1; beta <- 0.2; gamma <- 0.5; h <- 0.01
DU <- barrier_height(gamma, V0)
nmax <- sp_threads()
threads <- unique(c(2^(0:floor(log2(nmax))), nmax))
res <- NULL
for (p in c("single", "double")) {
  base <- NA
  for (nt in threads) {
    old <- sp_threads(nt)
    x <- escape_times(2000 * nt, gamma = gamma, V0 = V0, beta = beta, theta = DU / 6,
                      dt = h, t_max = 2000, method = "euler", precision = p,
                      seed = 1, backend = "cpu", progress = FALSE)
    sp_threads(old)
    rate <- attr(x, "steps")[["useful"]] / attr(x, "seconds")
    if (nt == 1) base <- rate
    res <- rbind(res, data.frame(precision = p, threads = nt, steps_per_s = signif(rate, 4),
                                 efficiency = round(rate / (nt * base), 3)))
  }
}
print(res, row.names = FALSE)

probe <- Sys.getenv("SP_PROBE")
if (nzchar(probe) && file.exists(probe)) {
  cat(system2(probe, as.character(nmax), stdout = TRUE), sep = "\n")
}
