# Benchmark: the DMC ground-state energy of the Lennard-Jones model of
# helium-4 (de Boer-Michels: epsilon = 10.22 K, sigma = 2.556 A), the
# Hamiltonian of McMillan (1965) and of the Green's function Monte Carlo of
# Whitlock, Ceperley, Chester and Kalos (Phys. Rev. B 19, 5598 (1979)) and
# Kalos, Lee, Whitlock and Chester (Phys. Rev. B 24, 115 (1981)): a second
# Hamiltonian, to separate the engine from the Aziz reference (issue 52,
# item 4).
#
#   Rscript bench/he4-dmc-lj.R gpu    (N = 108 on one GPU; some 3-5 min of an H100)
#   Rscript bench/he4-dmc-lj.R cpu    (N = 32, small; some 5 min on 2 cores; a smoke run)
#
# At each N and density: E/N at two small time steps dt and 2 dt (P walkers
# each, 1 K^-1 of equilibration, SP_DMC_TAU_REC K^-1 recorded), the linear
# limit E0 = 2 E(dt) - E(2 dt), the Lennard-Jones tail correction (g = 1
# beyond L/2, closed form), and E0/N + tail.  The published value to compare
# with is given by environment, because none was verified from its source
# when this script was written (bench/RESULTS.md, "Expected before run 4"):
#   SP_LJ_REF      the published E/N (K)            (none: no comparison printed)
#   SP_LJ_REF_SE   its error (K)
#   SP_LJ_REF_TAIL "with" (default) if it includes the tail correction, "without" if not
#   SP_LJ_REF_NAME where it comes from (printed)
# Settings: SP_DMC_NS (N, default 108), SP_LJ_RHO (A^-3, default 0.02186 =
# 0.365 sigma^-3), SP_DMC_DTS (two steps, default 0.00025,0.0005), SP_DMC_P
# (walkers, default 2000), SP_DMC_TAU_REC (default 10), SP_DMC_TAU_EQ (1).
# The guide: McMillan's with b = 3.07 A (any positive guide gives the same
# energy; the walkers start from a VMC run of the Aziz helium, which the
# equilibration forgets).  Prints one table and the device, commit and date.
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
what <- bench_arg("gpu")
num_env <- function(name, default) {
  x <- Sys.getenv(name)
  if (nzchar(x)) as.numeric(strsplit(x, ",")[[1]]) else default
}
eps <- 10.22
sigma <- 2.556
rho <- num_env("SP_LJ_RHO", 0.02186)
ref <- num_env("SP_LJ_REF", NA_real_)
ref_se <- num_env("SP_LJ_REF_SE", 0)
ref_tail <- Sys.getenv("SP_LJ_REF_TAIL", "with")
ref_name <- Sys.getenv("SP_LJ_REF_NAME", "published")
if (!ref_tail %in% c("with", "without")) stop("SP_LJ_REF_TAIL: `with` or `without`", call. = FALSE)

if (what == "gpu") {
  d <- gpu_first()
  dev <- d$name[1]
  backend <- "gpu"
  sizes <- num_env("SP_DMC_NS", 108)
  dts <- num_env("SP_DMC_DTS", c(0.00025, 0.0005))
  P <- num_env("SP_DMC_P", 2000)
  tau_rec <- num_env("SP_DMC_TAU_REC", 10)
} else if (what == "cpu") {
  dev <- cpu_device()
  backend <- "cpu"
  sizes <- num_env("SP_DMC_NS", 32)
  dts <- num_env("SP_DMC_DTS", c(0.001, 0.002))
  P <- num_env("SP_DMC_P", 100)
  tau_rec <- num_env("SP_DMC_TAU_REC", 1)
} else {
  stop("give `gpu` or `cpu`", call. = FALSE)
}
if (length(dts) != 2) stop("SP_DMC_DTS: two time steps", call. = FALSE)
tau_eq <- num_env("SP_DMC_TAU_EQ", 1)
t_start <- Sys.time()
cat(sprintf("bench/he4-dmc-lj.R %s | device %s | commit %s | %s\n", what, dev, commit, date))
cat(sprintf(paste0("Lennard-Jones helium: epsilon = %g K, sigma = %g A, density %g A^-3 ",
                   "(%.4f sigma^-3)%s\n"), eps, sigma, rho, rho * sigma^3,
            if (is.na(ref)) "; no published value given (SP_LJ_REF)"
            else sprintf("; %s: %.3f +- %.3f K (%s tail)", ref_name, ref, ref_se, ref_tail)))

mean_se <- function(x) {
  s <- summary(x)
  se <- if (is.finite(s$se[1])) s$se[1] else attr(s, "se_blocks")[["energy"]]
  list(mean = s$mean[1], se = se, overflow = attr(s, "overflow"),
       acc = attr(s, "acceptance"), tail = attr(x, "tail_correction"))
}

for (n in sizes) {
  v <- he4_vmc(n, density = rho, replicas = if (backend == "gpu") 512 else 16, blocks = 2,
               block_sweeps = 50, equilibration = 300, seed = 1, backend = backend,
               precision = "double", progress = FALSE)
  seed <- 700 + n
  runs <- lapply(dts, function(dt) {
    seed <<- seed + 1
    x <- he4_dmc(n, density = rho, dt = dt, walkers = P, blocks = 40,
                 block_steps = ceiling(tau_rec / (40 * dt)),
                 equilibration = ceiling(tau_eq / dt), init = v, seed = seed,
                 backend = backend, progress = FALSE, potential = "lennard-jones",
                 lj_epsilon = eps, lj_sigma = sigma)
    r <- mean_se(x)
    add(sprintf("LJ N = %g, dt = %g, P = %g: E/N (reweighted, no tail)", n, dt, P),
        r$mean, "K", note = sprintf("+- %.4f; acceptance %.3f; overflow %g; %.1f s",
                                    r$se, r$acc, r$overflow, attr(x, "seconds")))
    r
  })
  # the linear limit from dt1 and dt2 = 2 dt1 (any ratio: E0 = E1 - dt1 (E2 - E1) / (dt2 - dt1))
  k <- dts[1] / (dts[2] - dts[1])
  e0 <- runs[[1]]$mean - k * (runs[[2]]$mean - runs[[1]]$mean)
  se0 <- sqrt(((1 + k) * runs[[1]]$se)^2 + (k * runs[[2]]$se)^2)
  tail <- runs[[1]]$tail
  add(sprintf("LJ N = %g: E0/N, dt -> 0 (linear in dt), no tail", n), e0, "K",
      note = sprintf("+- %.4f", se0))
  add(sprintf("LJ N = %g: tail correction (g = 1 beyond L/2)", n), tail, "K")
  add(sprintf("LJ N = %g: E0/N + tail", n), e0 + tail, "K", note = sprintf("+- %.4f", se0))
  if (!is.na(ref)) {
    ours <- if (ref_tail == "with") e0 + tail else e0
    z <- (ours - ref) / sqrt(se0^2 + ref_se^2)
    add(sprintf("LJ N = %g: difference from %s (%s tail)", n, ref_name, ref_tail),
        ours - ref, "K", note = sprintf("z = %.2f (combined error %.4f K)", z,
                                        sqrt(se0^2 + ref_se^2)))
  }
}
add("wall time of the benchmark", as.numeric(Sys.time() - t_start, units = "secs"), "s")
bench_print(brief = TRUE)
