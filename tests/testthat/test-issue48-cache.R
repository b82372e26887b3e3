# The compile cache (issue 48, items 4, 5 and 9): a cache that cannot be
# written costs one warning and never a spin; a lock left by a process that
# died while compiling is taken over at once, and a wait on a live one is
# said; gpu_cache_clear() removes what the package wrote and nothing else;
# a file where the `sde` folder belongs is named as what it is.

# Compiles user models (some 5 s each). Skipped on CRAN; `make test` and CI set NOT_CRAN=true.
skip_on_cran()

# A fresh cache folder for one test (a "working folder" of the user's).
i48_cache <- function(env = parent.frame()) {
  dir <- withr::local_tempdir("sp48", .local_envir = env)
  withr::local_options(statphysgpu.cache_dir = dir, .local_envir = env)
  statphysgpu:::sde_forget_loaded()
  withr::defer(statphysgpu:::sde_forget_loaded(), envir = env)
  normalizePath(dir)
}

# Stop a test that would spin or wait (the bugs) instead of hanging CI.
i48_time_limit <- function(seconds, env = parent.frame()) {
  setTimeLimit(elapsed = seconds, transient = TRUE)
  withr::defer(setTimeLimit(elapsed = Inf), envir = env)
}

i48_run <- function(m) {
  sde_run(m, 2, init = list(x = 1), dt = 0.1, t_max = 0.1, backend = "cpu",
          output = "moments", progress = FALSE)
}

# A lock folder as an earlier version of the package left it: its owner
# record (pid, host, boot).
i48_plant_lock <- function(lock, pid, host = unname(Sys.info()[["nodename"]])) {
  f <- "/proc/sys/kernel/random/boot_id"
  boot <- if (file.exists(f)) readLines(f, n = 1L) else ""
  dir.create(lock, mode = "0700")
  owner <- file.path(lock, "owner")
  writeLines(c("statphysgpu-lock 1", pid, host, boot, round(as.numeric(Sys.time()))), owner)
  Sys.chmod(owner, "0600", use_umask = FALSE)
  invisible(lock)
}

# The pid of a process that has ended (a shell that printed its pid).
i48_dead_pid <- function() {
  pid <- as.integer(system2("sh", c("-c", shQuote("echo $$")), stdout = TRUE))
  if (isTRUE(tools::pskill(pid, 0L))) skip("the ended shell's pid is in use again")
  pid
}

# Another R process that takes the lock `lock` (filelock, as cache_lock()
# does) and holds it until killed: returns its pid once it holds it.
i48_hold_lock <- function(lock, env = parent.frame()) {
  ready <- paste0(lock, ".ready")
  pidfile <- withr::local_tempfile(.local_envir = env)
  code <- sprintf(paste0("l <- filelock::lock('%s'); writeLines(as.character(Sys.getpid()), '%s'); ",
                         "file.create('%s'); Sys.sleep(60)"), lock, pidfile, ready)
  system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", "-e", shQuote(code)),
          stdout = FALSE, stderr = FALSE, wait = FALSE)
  t0 <- proc.time()[["elapsed"]]
  while (!file.exists(ready) && proc.time()[["elapsed"]] - t0 < 30) Sys.sleep(0.05)
  pid <- as.integer(readLines(pidfile, n = 1L))
  unlink(ready)
  withr::defer(tools::pskill(pid), envir = env)
  pid
}

test_that("item 4: a lock that cannot be made costs one warning and the build goes on; no spin", {
  # a path under a regular file: no folder can be made there, even by root
  blocker <- withr::local_tempfile()
  writeLines("not a folder", blocker)
  path <- file.path(blocker, paste0("cpu-", strrep("ab", 16), ".so"))
  i48_time_limit(30) # before the fix: 100 % CPU until killed
  t0 <- proc.time()[["elapsed"]]
  expect_warning(release <- statphysgpu:::cache_lock(path, "key"),
                 "could not write the compile cache in .*this session only",
                 class = "statphysgpu_cache_warning")
  expect_lt(proc.time()[["elapsed"]] - t0, 5)
  expect_true(is.function(release))
  expect_null(release())
  # the warning is given once a session per folder
  expect_silent(statphysgpu:::cache_lock(path, "key"))
})

test_that("item 4: a model compiles and runs, with one warning, where its cache folder takes no file", {
  skip_if_no_cc()
  i48_cache()
  blocker <- withr::local_tempfile()
  writeLines("not a folder", blocker)
  # the cache's model folder is a path under a file (as a full disk or a
  # file system out of inodes: nothing can be created there, even by root)
  ns <- asNamespace("statphysgpu")
  old <- get("sde_cache_dir", ns)
  unlockBinding("sde_cache_dir", ns)
  assign("sde_cache_dir", function() file.path(blocker, "sde"), envir = ns)
  withr::defer({
    assign("sde_cache_dir", old, envir = ns)
    lockBinding("sde_cache_dir", ns)
  })
  i48_time_limit(120) # before the fix: the lock spun forever
  m <- sde_model(drift = list(x = ~ -5 * x), name = "nowhere")
  w <- list()
  r <- withCallingHandlers(i48_run(m), warning = function(c) {
    w[[length(w) + 1L]] <<- c
    invokeRestart("muffleWarning")
  })
  expect_length(w, 1L)
  expect_s3_class(w[[1]], "statphysgpu_cache_warning")
  expect_match(conditionMessage(w[[1]]), "could not write the compile cache in .*this session only")
  expect_s3_class(r, "sde_moments")
  # in this session the model is loaded: no second compile, no second warning
  n0 <- statphysgpu:::sde_compile_stats()$compiles
  expect_silent(i48_run(m))
  expect_identical(statphysgpu:::sde_compile_stats()$compiles, n0)
})

test_that("item 4: a read-only model folder costs a warning and the session's folder (non-root)", {
  skip_if_no_cc()
  if (identical(unname(Sys.info()[["effective_user"]]), "root")) {
    skip("root writes into read-only folders (the tests above make the folder fail for root)")
  }
  dir <- i48_cache()
  sde <- file.path(dir, "sde")
  dir.create(sde, mode = "0700")
  Sys.chmod(sde, "0500", use_umask = FALSE)
  withr::defer(Sys.chmod(sde, "0700", use_umask = FALSE))
  i48_time_limit(120)
  m <- sde_model(drift = list(x = ~ -6 * x), name = "readonly")
  expect_warning(r <- i48_run(m), "cannot be written", class = "statphysgpu_cache_warning")
  expect_s3_class(r, "sde_moments")
  expect_length(list.files(sde, all.files = TRUE, no.. = TRUE), 0L)
})

test_that("item 5: a lock left by a process killed while compiling is taken over at once", {
  skip_if_no_cc()
  dir <- i48_cache()
  m <- sde_model(drift = list(x = ~ -3 * x), name = "lock-dead")
  r1 <- i48_run(m)
  so <- list.files(file.path(dir, "sde"), pattern = "\\.so$", full.names = TRUE)
  expect_length(so, 1L)
  # the process compiling it died: no object; the operating system released
  # its lock (issue 51: filelock, no owner records)
  unlink(c(so, paste0(so, ".sha256")))
  statphysgpu:::sde_forget_loaded()
  pid <- i48_hold_lock(paste0(so, ".lock"))
  tools::pskill(pid, tools::SIGKILL)
  i48_time_limit(150) # before the fix: 900 s of silence
  s0 <- statphysgpu:::sde_compile_stats()
  t0 <- proc.time()[["elapsed"]]
  expect_silent(r2 <- i48_run(m))
  waited <- proc.time()[["elapsed"]] - t0 -
    (statphysgpu:::sde_compile_stats()$compile_seconds - s0$compile_seconds)
  expect_lt(waited, 5)
  expect_identical(statphysgpu:::sde_compile_stats()$compiles, s0$compiles + 1L)
  expect_identical(r2$value, r1$value)
  expect_true(file.exists(so))
  # the lock folder an earlier version left is replaced at once
  unlink(c(so, paste0(so, ".sha256"), paste0(so, ".lock")))
  statphysgpu:::sde_forget_loaded()
  lock <- i48_plant_lock(paste0(so, ".lock"), Sys.getpid())
  expect_silent(r3 <- i48_run(m))
  expect_identical(r3$value, r1$value)
  expect_false(dir.exists(lock))
})

test_that("item 5: waiting on a live lock says so; it is not taken over", {
  d <- withr::local_tempdir("sp48lock")
  path <- file.path(d, paste0("cpu-", strrep("cd", 16), ".so"))
  lock <- paste0(path, ".lock")
  i48_hold_lock(lock)
  expect_message(release <- statphysgpu:::cache_lock(path, "key", wait = 1.5, say = 0.5),
                 "Waiting for another R session, which is compiling this model")
  expect_true(is.function(release)) # after `wait`: built without the lock
  expect_null(filelock::lock(lock, timeout = 0)) # still the other process's
  # free: taken at once, silently, and given back
  d2 <- withr::local_tempdir("sp48lock")
  path2 <- file.path(d2, paste0("cpu-", strrep("ef", 16), ".so"))
  expect_silent(release2 <- statphysgpu:::cache_lock(path2, "key", say = 0))
  expect_true(is.function(release2))
  release2()
  h <- filelock::lock(paste0(path2, ".lock"), timeout = 0)
  expect_false(is.null(h))
  filelock::unlock(h)
})

test_that("item 9: gpu_cache_clear() removes the package's files and keeps the user's", {
  skip_if_no_cc()
  dir <- i48_cache()
  sde <- file.path(dir, "sde")
  dir.create(sde, mode = "0700")
  dir.create(file.path(dir, "figures"))
  mine <- c("notes.txt", "kernel.ptx", "old.cubin", "data.lock", ".Rhistory", "figures/a.ptx",
            "sde/my_analysis.R", "sde/model.so", "sde/run.lock", "sde/table.sha256")
  for (f in mine) writeLines(paste("mine:", f), file.path(dir, f))
  dir.create(file.path(sde, "results.lock")) # a folder of the user's named *.lock
  writeLines("kept", file.path(sde, "results.lock", "summary.csv"))
  # the package's own: a compiled model, a GPU kernel, a model's GPU image
  # written as the previous version wrote it, an old empty lock folder, a
  # temporary file of a write that died
  m <- sde_model(drift = list(x = ~ -2 * x), name = "cleared")
  i48_run(m)
  key <- statphysgpu:::sp_sha256("a kernel")
  statphysgpu:::cache_write(file.path(dir, sprintf("rng-sm_90-%s.cubin", substr(key, 1, 32))),
                            key, as.raw(1:3))
  key2 <- statphysgpu:::sp_sha256("an image of the previous version")
  old <- file.path(sde, sprintf("sde-sm_90-%s.cubin", substr(key2, 1, 32)))
  writeBin(as.raw(4:6), old)
  writeLines(c("statphysgpu-cache 1", key2, statphysgpu:::sp_sha256(as.raw(4:6))),
             paste0(old, ".sha256"))
  dir.create(paste0(old, ".lock"))
  writeLines("partial", file.path(sde, sprintf(".tmp-%d-abcdefghijk0", i48_dead_pid())))
  before <- sort(list.files(dir, recursive = TRUE, all.files = TRUE))
  expect_identical(gpu_cache_clear(), 3L)
  for (f in mine) expect_identical(readLines(file.path(dir, f)), paste("mine:", f))
  expect_identical(readLines(file.path(sde, "results.lock", "summary.csv")), "kept")
  expect_setequal(list.files(dir, recursive = TRUE, all.files = TRUE),
                  c(mine, "sde/results.lock/summary.csv"))
  expect_false(dir.exists(paste0(old, ".lock")))
  expect_gt(length(before), length(mine) + 1L)
  # the model compiles again into the same folder, and a second clear keeps
  # the user's files again
  n0 <- statphysgpu:::sde_compile_stats()$compiles
  i48_run(m)
  expect_identical(statphysgpu:::sde_compile_stats()$compiles, n0 + 1L)
  expect_identical(gpu_cache_clear(), 1L)
  expect_setequal(list.files(dir, recursive = TRUE, all.files = TRUE),
                  c(mine, "sde/results.lock/summary.csv"))
})

test_that("a file where the cache's `sde` folder belongs is named, kept and worked around", {
  skip_if_no_cc()
  dir <- i48_cache()
  writeLines("my notes", file.path(dir, "sde"))
  m <- sde_model(drift = list(x = ~ -8 * x), name = "sde-file")
  expect_warning(r <- i48_run(m),
                 "sde is a file, not a folder .*this session.s folder.*Move or rename that file, or set options\\(statphysgpu.cache_dir",
                 class = "statphysgpu_cache_warning")
  expect_s3_class(r, "sde_moments")
  expect_identical(readLines(file.path(dir, "sde")), "my notes")
  expect_identical(list.files(dir, all.files = TRUE, no.. = TRUE), "sde")
})
