# User models are code (issue 32): what the package compiles and loads is
# only what it generated from checked equations in this session, from a
# private cache checked file by file; names never shadow the package's own;
# sessions never run out of DLLs; the compile path fails in words.

# Heavy: user models compiled, caches shared between users (20 s). Skipped on CRAN; `make test` and CI set NOT_CRAN=true.
skip_on_cran()

safety_ou <- function(name = "safe-ou") {
  sde_model(drift = list(x = ~ -k * x), noise = list(x = ~ s), params = c(k = 1, s = 1),
            stop = ~ x > 1, name = name)
}

# A fresh private cache for one test.
local_model_cache <- function(env = parent.frame()) {
  dir <- withr::local_tempdir("spsafe", .local_envir = env)
  withr::local_options(statphysgpu.cache_dir = dir, .local_envir = env)
  statphysgpu:::sde_forget_loaded()
  withr::defer(statphysgpu:::sde_forget_loaded(), envir = env)
  dir
}

mode_of <- function(path) bitwAnd(.Call(statphysgpu:::C_sp_r_path_info, path)$mode, 511L)

test_that("SHA-256 gives the published digests (FIPS 180-4 examples)", {
  h <- function(x) statphysgpu:::sp_sha256(x)
  expect_identical(h(charToRaw("abc")),
                   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  expect_identical(h(raw()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
  expect_identical(h(charToRaw("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
                   "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
  # a million 'a': the padding across many blocks
  expect_identical(h(rep(charToRaw("a"), 1e6)),
                   "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  # strings: each followed by its NUL
  expect_identical(h(c("ab", "c")), h(c(charToRaw("ab"), as.raw(0), charToRaw("c"), as.raw(0))))
})

test_that("a model object's stored C is never compiled: a poisoned saved model runs its equations", {
  skip_if_no_cc()
  local_model_cache()
  m <- safety_ou()
  marker <- file.path(tempdir(), "sp-poisoned-marker")
  unlink(marker)
  # the audit's attack: a constructor appended to the stored code, the object
  # saved and read back (it prints as the harmless equations)
  bad <- m
  bad$code <- paste0(m$code, sprintf(paste0(
    "#include <stdio.h>\n__attribute__((constructor)) static void sp_evil(void) { ",
    "FILE *f = fopen(\"%s\", \"w\"); if (f) fclose(f); }\n"), marker))
  bad$hash <- paste0(substr(m$hash, 1, 60), "beef")
  f <- withr::local_tempfile(fileext = ".rds")
  saveRDS(bad, f)
  bad <- readRDS(f)
  args <- list(replicas = 50, init = list(x = 0), dt = 0.01, t_max = 2, seed = 4,
               backend = "cpu", output = "moments", record_every = 50)
  expect_warning(r_bad <- do.call(sde_run, c(list(bad), args)),
                 "differs from what sde_model\\(\\) makes of its equations.*`code`, `hash`",
                 class = "statphysgpu_cache_warning")
  expect_false(file.exists(marker))
  r_good <- do.call(sde_run, c(list(m), args))
  expect_identical(r_bad$mean, r_good$mean)
  expect_identical(sde_code(bad), m$code)
  # a copied hash runs the object's own equations, not the other model's
  other <- sde_model(drift = list(x = ~ -3 * k * x), noise = list(x = ~ s),
                     params = c(k = 1, s = 1), stop = ~ x > 1, name = "safe-ou")
  other$hash <- m$hash
  suppressWarnings(r_other <- do.call(sde_run, c(list(other), args)))
  expect_false(identical(r_other$mean, r_good$mean))
  expect_lt(r_other$sd[r_other$time == 2], r_good$sd[r_good$time == 2])
})

test_that("a modified model object is rebuilt from its equations or refused", {
  skip_if_no_cc()
  local_model_cache()
  m <- sde_model(drift = list(x = ~ v, v = ~ -x), noise = list(v = ~ s), params = c(s = 0),
                 name = "safe-osc")
  # the audit: m$states shortened read and wrote past the buffer
  short <- m
  short$states <- "x"
  expect_warning(r <- sde_run(short, 4, init = list(x = 1, v = 0), dt = 0.01, t_max = 0.1,
                              output = "moments", backend = "cpu", seed = 1,
                              precision = "double", method = "euler"),
                 "`states`", class = "statphysgpu_cache_warning")
  expect_setequal(unique(r$variable), c("x", "v"))
  expect_identical(r$sd[r$time == 0], c(0, 0))
  # a parameter taken away: the equations no longer check
  gone <- m
  gone$params <- gone$params[0]
  expect_error(sde_run(gone, 4, init = list(x = 1, v = 0), dt = 0.01, t_max = 0.1,
                       backend = "cpu"), "unknown variable `s`",
               class = "statphysgpu_model_invalid")
  # an expression the checks refuse, put in by hand
  evil <- m
  evil$drift$x <- quote(system("true"))
  expect_error(sde_run(evil, 4, init = list(x = 1, v = 0), dt = 0.01, t_max = 0.1,
                       backend = "cpu"), "unknown function `system\\(\\)`",
               class = "statphysgpu_model_invalid")
  # the compiled object carries its sizes, checked against the model
  lib <- statphysgpu:::sde_cpu_load(m)
  expect_identical(lib$sizes, c(2L, 1L, 1L, 0L))
})

test_that("the cache is private: folders 0700, files 0600, each file checked before use", {
  skip_if_no_cc()
  dir <- local_model_cache()
  m <- safety_ou("safe-perm")
  r1 <- sde_run(m, 20, init = list(x = 0), dt = 0.01, t_max = 1, seed = 2, backend = "cpu")
  sde <- file.path(dir, "sde")
  expect_identical(mode_of(sde), 448L) # 0700
  files <- list.files(sde, full.names = TRUE)
  expect_length(grep("\\.so\\.sha256$", files), 1)
  for (f in files) expect_identical(mode_of(f), 384L) # 0600
  so <- grep("\\.so$", files, value = TRUE)
  # a damaged object (the audit's "file too short") is compiled again, once
  statphysgpu:::sde_forget_loaded()
  writeBin(readBin(so, "raw", 100), so)
  n0 <- statphysgpu:::sde_compile_stats()$compiles
  r2 <- sde_run(m, 20, init = list(x = 0), dt = 0.01, t_max = 1, seed = 2, backend = "cpu")
  expect_identical(statphysgpu:::sde_compile_stats()$compiles, n0 + 1L)
  expect_identical(r2$value, r1$value)
  # an object whose record names another key is not used either
  statphysgpu:::sde_forget_loaded()
  rec <- paste0(so, ".sha256")
  txt <- readLines(rec)
  txt[2] <- paste(rev(strsplit(txt[2], "")[[1]]), collapse = "")
  writeLines(txt, rec)
  r3 <- sde_run(m, 20, init = list(x = 0), dt = 0.01, t_max = 1, seed = 2, backend = "cpu")
  expect_identical(statphysgpu:::sde_compile_stats()$compiles, n0 + 2L)
  # a file others may write is refused
  statphysgpu:::sde_forget_loaded()
  Sys.chmod(so, "0666", use_umask = FALSE)
  expect_warning(sde_run(m, 20, init = list(x = 0), dt = 0.01, t_max = 1, seed = 2,
                         backend = "cpu"), "others can write it", class = "statphysgpu_cache_warning")
  expect_identical(statphysgpu:::sde_compile_stats()$compiles, n0 + 3L)
  # nothing is left behind by the builds (they run in the session's own folder)
  expect_false(any(grepl("^\\.tmp-|\\.lock$|sde-build", list.files(sde, all.files = TRUE))))
})

test_that("a cache folder others can write is made private, or not used, with a warning", {
  skip_if_no_cc()
  base <- withr::local_tempdir("spshared")
  statphysgpu:::sde_forget_loaded()
  withr::defer(statphysgpu:::sde_forget_loaded())
  # ours but group-writable (umask 002): made private
  mine <- file.path(base, "mine")
  dir.create(mine)
  Sys.chmod(mine, "0775", use_umask = FALSE)
  withr::local_options(statphysgpu.cache_dir = mine)
  expect_warning(d <- gpu_cache_dir(), "was writable by group or others; it is now private",
                 class = "statphysgpu_cache_warning")
  expect_identical(d, normalizePath(mine))
  expect_identical(mode_of(mine), 448L)
  # inside a folder anyone can write (no sticky bit): the session's folder
  open <- file.path(base, "open")
  dir.create(open)
  Sys.chmod(open, "0777", use_umask = FALSE)
  withr::local_options(statphysgpu.cache_dir = file.path(open, "cache"))
  expect_warning(d <- gpu_cache_dir(), "another user owns or can write", class = "statphysgpu_cache_warning")
  expect_match(d, "statphysgpu-cache$")
  expect_true(startsWith(d, tempdir()))
  # a file where the folder should be: the session's folder, and models run
  f <- file.path(base, "afile")
  writeLines("x", f)
  withr::local_options(statphysgpu.cache_dir = f)
  expect_warning(r <- sde_run(safety_ou("safe-file"), 10, init = list(x = 0), dt = 0.01,
                              t_max = 1, backend = "cpu", seed = 1),
                 "is a file, not a folder", class = "statphysgpu_cache_warning")
  expect_identical(nrow(r), 10L)
})

test_that("two users sharing a cache: no one's planted object or header runs in another's session", {
  skip_on_cran()
  skip_if_no_cc()
  if (!identical(unname(Sys.info()[["effective_user"]]), "root")) {
    skip("the two-user test creates users: it runs as root (as CI does)")
  }
  if (!nzchar(Sys.which("useradd")) || !nzchar(Sys.which("su"))) skip("no useradd or su")
  users <- c("spvictim", "spattacker")
  for (u in users) {
    if (system2("id", u, stdout = FALSE, stderr = FALSE) != 0) {
      if (system2("useradd", c("-M", "-s", "/bin/sh", u), stdout = FALSE, stderr = FALSE) != 0) {
        skip(sprintf("could not create the user %s", u))
      }
    }
  }
  as_user <- function(u, code, env = character()) {
    f <- tempfile("sp2u", tmpdir = base, fileext = ".R")
    writeLines(code, f)
    Sys.chmod(f, "0644", use_umask = FALSE)
    out <- suppressWarnings(system2("su", c("-s", "/bin/sh", u, "-c", shQuote(paste(
      paste(env, collapse = " "), sprintf("HOME=%s R_LIBS=%s", base, lib),
      file.path(R.home("bin"), "Rscript"), "--vanilla", f, "2>&1"))),
      stdout = TRUE))
    out
  }
  base <- tempfile("sp2users", tmpdir = "/tmp")
  dir.create(base, mode = "0755")
  withr::defer(unlink(base, recursive = TRUE))
  # the installed package, where both users can read it
  lib <- file.path(base, "lib")
  dir.create(lib, mode = "0755")
  file.copy(system.file(package = "statphysgpu"), lib, recursive = TRUE)
  system2("chmod", c("-R", "a+rX", lib))
  if (!any(grepl("^ok", as_user("spvictim", "library(statphysgpu); cat('ok\\n')")))) {
    skip("the other users cannot load the installed package (library not readable)")
  }
  shared <- file.path(base, "shared")
  dir.create(shared)
  Sys.chmod(shared, "1777", use_umask = FALSE) # a scratch folder as /tmp
  atk <- file.path(base, "atk") # the attacker's own folder (anyone may write it)
  dir.create(atk)
  Sys.chmod(atk, "0777", use_umask = FALSE)
  marker <- file.path(atk, "pwned") # what the planted constructor writes
  victim_run <- sprintf(paste(
    "library(statphysgpu)", "options(cli.condition_width = Inf)",
    "m <- sde_model(drift = list(x = ~ -k * x), noise = list(x = ~ s), params = c(k = 1, s = 1), name = 'ou')",
    "r <- withCallingHandlers(sde_run(m, 50, init = list(x = 0), dt = 0.01, t_max = 1, seed = 3,",
    "  output = 'moments', backend = 'cpu'), warning = function(w) { cat('WARN', conditionMessage(w), '\\n'); invokeRestart('muffleWarning') })",
    "cat('mean', format(r$mean[nrow(r)], digits = 17), '\\n')",
    "cat('dir', gpu_cache_dir(), '\\n')", sep = "\n"))
  # the genuine result, in the victim's own cache
  dir.create(file.path(base, "vown"), mode = "0700")
  system2("chown", c("spvictim", file.path(base, "vown")))
  genuine <- as_user("spvictim", victim_run, sprintf("STATPHYSGPU_CACHE_DIR=%s", file.path(base, "vown")))
  g_mean <- grep("^mean", genuine, value = TRUE)
  if (length(g_mean) != 1) print(genuine)
  expect_length(g_mean, 1)
  # the attacker prepares the victim's private subfolder of the shared
  # folder first, with an object whose constructor leaves a marker under
  # every name the victim's cache used, and records that match it
  evil_c <- file.path(base, "evil.c")
  writeLines(sprintf(paste0("#include <stdio.h>\n__attribute__((constructor)) static void e(void)",
                            " { FILE *f = fopen(\"%s\", \"w\"); if (f) fclose(f); }\n"), marker),
             evil_c)
  victim_uid <- as.integer(system2("id", c("-u", "spvictim"), stdout = TRUE))
  vroot <- file.path(shared, sprintf("statphysgpu-%d", victim_uid))
  vown <- file.path(base, "vown")
  own <- list.files(vown, recursive = TRUE) # relative paths of the victim's cache
  objects <- grep("\\.(so|cubin|ptx)$", own, value = TRUE)
  expect_gt(length(objects), 0)
  # every object the victim's cache holds, planted under the same name in the
  # shared folder itself and in the victim's would-be private subfolder,
  # with records that match it and name the victim's keys
  plant <- sprintf(paste(
    "system2('cc', c('-shared', '-fPIC', '-o', '%s/evil.so', '%s'))",
    "b <- readBin('%s/evil.so', 'raw', file.size('%s/evil.so'))",
    "for (root in c('%s', '%s')) for (f in c(%s)) {",
    "  dir.create(dirname(file.path(root, f)), recursive = TRUE, mode = '0777')",
    "  writeBin(b, file.path(root, f))",
    "  rec <- file.path('%s', paste0(f, '.sha256'))",
    "  key <- if (file.exists(rec)) readLines(rec)[2] else ''",
    "  h <- tryCatch(statphysgpu:::sp_sha256(b), error = function(e) '')",
    "  writeLines(c('statphysgpu-cache 1', key, h), file.path(root, paste0(f, '.sha256')))",
    "}", "cat('planted\\n')", sep = "\n"),
    atk, evil_c, atk, atk, shared, vroot, paste0("'", objects, "'", collapse = ", "), vown)
  # (the attacker reads the victim's records here only because the test gives
  # them a copy: a real attacker cannot, and needs no key for this attack)
  system2("chmod", c("-R", "a+rX", vown))
  res <- as_user("spattacker", plant, "STATPHYSGPU_CACHE_DIR=/nonexistent")
  if (!any(grepl("planted", res))) print(res)
  expect_true(any(grepl("planted", res)))
  expect_true(all(file.exists(file.path(c(shared, vroot), objects[1]))))
  system2("chmod", c("-R", "go-rwx", vown))
  # the victim, told to use the shared folder, does not run the planted object
  out <- as_user("spvictim", victim_run, sprintf("STATPHYSGPU_CACHE_DIR=%s", shared))
  expect_false(file.exists(marker))
  expect_identical(grep("^mean", out, value = TRUE), g_mean)
  expect_true(any(grepl("WARN .*not yours", out)))
  # the victim's own cache made group- and world-writable by mistake, the
  # attacker's object put inside: refused file by file, rebuilt
  vown_sde <- file.path(vown, "sde")
  Sys.chmod(c(vown, vown_sde), "0777", use_umask = FALSE)
  so <- file.path(vown, grep("\\.so$", objects, value = TRUE))
  unlink(so)
  plant2 <- sprintf(paste(
    "b <- readBin('%s/evil.so', 'raw', file.size('%s/evil.so'))",
    "writeBin(b, '%s')", "cat('planted\\n')", sep = "\n"), atk, atk, so)
  expect_true(any(grepl("planted", as_user("spattacker", plant2))))
  out2 <- as_user("spvictim", victim_run, sprintf("STATPHYSGPU_CACHE_DIR=%s", file.path(base, "vown")))
  expect_false(file.exists(marker))
  expect_identical(grep("^mean", out2, value = TRUE), g_mean)
  expect_true(any(grepl("WARN .*(now private|another user owns it)", out2)))
})

test_that("names the package uses are refused up front", {
  expect_error(sde_model(drift = list(x = ~ -condition * x), params = c(condition = 5)),
               "`params` has the name `condition`, which the package reserves",
               class = "statphysgpu_reserved_name")
  expect_error(sde_model(drift = list(x = ~ -x), observe = list(time = ~ x)),
               "`observe` has the name `time`", class = "statphysgpu_reserved_name")
  for (nm in c("mean", "sd", "se", "value", "replica", "escaped", "variable", "n", "ifelse", "sin")) {
    expect_error(sde_model(drift = list(x = ~ -x), params = stats::setNames(1, nm)),
                 sprintf("the name `%s`", nm), class = "statphysgpu_reserved_name")
  }
  expect_error(sde_model(drift = list(replica = ~ 1)), "`drift` has the name `replica`",
               class = "statphysgpu_reserved_name")
  # sde_ams(): a swept parameter may not be named as its result columns
  m <- sde_model(drift = list(x = ~ -p * x), noise = list(x = ~ 1), params = c(p = 1),
                 stop = ~ x > 1)
  expect_error(sde_ams(m, ~ x, start_edge = 0, init = list(x = 0), dt = 0.01, params = list(p = c(1, 2)),
                       backend = "cpu"), "the swept parameter `p` has the name of a column",
               class = "statphysgpu_reserved_name")
})

test_that("the translation does not recurse: 300-term sums and 250 nested calls", {
  skip_if_no_cc()
  local_model_cache()
  terms <- paste(sprintf("%d * a", 1:300), collapse = " + ")
  # built as a call: R's parser itself refuses 250 nested parentheses in text
  nest <- function(v) { e <- as.name(v); for (i in 1:250) e <- call("sin", e); e }
  m <- sde_model(drift = list(x = paste(terms, "+ 0 * x"), y = nest("a")), params = c(a = 0.001),
                 name = "deep")
  # the sum is one level of parentheses deep in C
  expect_false(grepl("((((", sde_code(m), fixed = TRUE))
  r <- sde_run(m, 1, init = list(x = 0, y = 0), dt = 0.5, t_max = 0.5, output = "trajectories",
               keep = 1, backend = "cpu", precision = "double", method = "euler")
  y <- 0.001; for (i in 1:250) y <- sin(y)
  expect_equal(r$x[2], 0.5 * sum(1:300) * 0.001, tolerance = 1e-14)
  expect_equal(r$y[2], 0.5 * y, tolerance = 1e-14)
  # and with the state inside: 250 nested sines of x
  m2 <- sde_model(drift = list(x = nest("x")), name = "deep2")
  expect_match(sde_code(m2), "SP_SIN(SP_SIN(", fixed = TRUE)
  # large: its functions and its sines are compiled out of line (a compile
  # of 13 s inlined), which a small model's are not
  expect_match(sde_code(m2), "SP_FN_OUTLINE void SP_PREC(sde_drift_ito)", fixed = TRUE)
  expect_false(grepl("SP_FN_OUTLINE", sde_code(safety_ou()), fixed = TRUE))
  r2 <- sde_run(m2, 1, init = list(x = 1), dt = 0.25, t_max = 0.25, output = "trajectories",
                keep = 1, backend = "cpu", precision = "double", method = "euler")
  y <- 1; for (i in 1:250) y <- sin(y)
  expect_equal(r2$x[2], 1 + 0.25 * y, tolerance = 1e-14)
})

test_that("a session never meets R's DLL limit: the least recently used model objects unload", {
  skip_if_no_cc()
  local_model_cache()
  withr::local_options(statphysgpu.sde_max_loaded = 2L)
  loaded <- function() {
    sum(grepl("statphysgpu-dll", vapply(getLoadedDLLs(), function(d) d[["path"]], "")))
  }
  ms <- lapply(1:3, function(i) sde_model(drift = list(x = paste0("-", i, " * x")),
                                          name = paste0("dll", i)))
  run <- function(m) sde_run(m, 2, init = list(x = 1), dt = 0.1, t_max = 0.1,
                             output = "trajectories", keep = 2, backend = "cpu",
                             precision = "double", method = "euler")$x[2]
  v <- vapply(ms, run, 0)
  expect_equal(v, 1 - 0.1 * (1:3))
  expect_identical(loaded(), 2L)
  # the first one, unloaded, runs again from the cache without compiling
  n0 <- statphysgpu:::sde_compile_stats()$compiles
  expect_identical(run(ms[[1]]), v[1])
  expect_identical(statphysgpu:::sde_compile_stats()$compiles, n0)
  expect_identical(loaded(), 2L)
})

test_that("compile failures say whether the model or the machine failed; no temporary folders stay", {
  m <- sde_model(drift = list(x = ~ -x), name = "m1")
  cmd <- paste("gcc -I/usr/share/R/include -DNDEBUG -I. -fpic -g -O2 -Wformat",
               "-Werror=format-security -c sde_model.c -o sde_model.o")
  # the command line holds "error" (-Werror=...): it is not the diagnostic
  expect_error(statphysgpu:::sde_compile_error(m, paste(
    cmd, "sde_model.c:3:10: fatal error: sde_prelude.h: No such file or directory",
    sep = "\n"), "C compiler"), "fatal error: sde_prelude.h", class = "statphysgpu_sde_compile_error")
  expect_error(statphysgpu:::sde_compile_error(m, paste(
    cmd, "/usr/bin/ld: final link failed: No space left on device", sep = "\n"), "C compiler"),
    "a reason of the machine, not of the model: .*No space left on device",
    class = "statphysgpu_sde_compile_system")
  expect_error(statphysgpu:::sde_compile_error(m, paste(
    cmd, sprintf("sde_model.h:%d:20: error: expected expression before ';' token",
                 m$lines$line[startsWith(m$lines$what, "the drift of `x`")][1]), sep = "\n"),
    "C compiler"), "in the drift of `x`", class = "statphysgpu_sde_compile_error")
  # the build reads nothing from the package's folder by path: a library
  # whose path has a space builds (the audit: every CPU model failed there)
  skip_if_no_cc()
  local_model_cache()
  spaced <- file.path(withr::local_tempdir("sp lib"), "cuda dir")
  dir.create(spaced)
  file.copy(list.files(statphysgpu:::cuda_source_dir(), full.names = TRUE), spaced)
  ns <- asNamespace("statphysgpu")
  old <- get("cuda_source_dir", ns)
  unlockBinding("cuda_source_dir", ns)
  assign("cuda_source_dir", function() spaced, envir = ns)
  withr::defer({ assign("cuda_source_dir", old, envir = ns); lockBinding("cuda_source_dir", ns) })
  m2 <- sde_model(drift = list(x = ~ -2 * x), name = "spaced")
  r <- sde_run(m2, 2, init = list(x = 1), dt = 0.1, t_max = 0.1, output = "trajectories",
               keep = 2, backend = "cpu", precision = "double", method = "euler")
  expect_equal(r$x[2], 0.8)
  # a model that does not compile leaves no build folder in the session either
  before <- list.files(tempdir(), pattern = "^sde-build")
  broken <- sde_model(drift = list(x = ~ -x), name = "broken")
  broken$code <- sub("f[0] = (-x[0]);", "f[0] = (-x[0]) +;", broken$code, fixed = TRUE)
  expect_error(statphysgpu:::sde_cpu_load(broken), class = "statphysgpu_sde_compile_error")
  expect_identical(list.files(tempdir(), pattern = "^sde-build"), before)
})

test_that("a compile says it starts and how long it took (with the progress bar on)", {
  skip_if_no_cc()
  local_model_cache()
  m <- sde_model(drift = list(x = ~ -4 * x), name = "noted")
  msgs <- capture_messages(sde_run(m, 2, init = list(x = 1), dt = 0.1, t_max = 0.1,
                                   backend = "cpu", output = "moments", progress = TRUE))
  expect_match(msgs[1], "Compiling the model \"noted\" \\(C compiler\\)")
  expect_match(msgs[2], "Compiled the model \"noted\" \\(C compiler\\) in [0-9.]+ s")
  expect_silent(sde_run(m, 2, init = list(x = 1), dt = 0.1, t_max = 0.1, backend = "cpu",
                        output = "moments", progress = FALSE))
})

test_that("parallel sessions compile a model once (a lock in the cache)", {
  skip_on_cran()
  skip_if_no_cc()
  dir <- local_model_cache()
  lib <- dirname(system.file(package = "statphysgpu"))
  code <- paste(
    "library(statphysgpu)",
    "m <- sde_model(drift = list(x = ~ -7 * x), name = 'locked')",
    "invisible(sde_run(m, 2, init = list(x = 1), dt = 0.1, t_max = 0.1, backend = 'cpu', output = 'moments'))",
    "cat(statphysgpu:::sde_compile_stats()$compiles, '\\n')", sep = "\n")
  f <- withr::local_tempfile(fileext = ".R")
  writeLines(code, f)
  outs <- file.path(dir, c("a.out", "b.out"))
  for (o in outs) {
    system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", f), stdout = o, stderr = o,
            wait = FALSE, env = c(sprintf("STATPHYSGPU_CACHE_DIR=%s", dir),
                                  sprintf("R_LIBS=%s", lib)))
  }
  t0 <- Sys.time()
  while (!all(vapply(outs, function(o) file.exists(o) && length(readLines(o, warn = FALSE)) > 0, TRUE)) &&
         difftime(Sys.time(), t0, units = "secs") < 120) Sys.sleep(0.2)
  n <- vapply(outs, function(o) as.integer(trimws(readLines(o, warn = FALSE)[1])), 0L)
  expect_identical(sort(unname(n)), c(0L, 1L))
})

test_that("parameters: a data frame gives paired conditions; a parameter given twice is refused", {
  skip_if_no_cc()
  local_model_cache()
  m <- sde_model(drift = list(x = ~ -k * x + c0), params = c(k = 1, c0 = 0), name = "pairs")
  run <- function(p) sde_run(m, 1, init = list(x = 1), dt = 0.1, t_max = 0.1, params = p,
                             output = "trajectories", keep = 1, backend = "cpu",
                             precision = "double", method = "euler")
  r <- run(data.frame(k = c(1, 2, 3), c0 = c(0, 1, 0)))
  end <- r[r$time == 0.1, ]
  expect_identical(nrow(end), 3L)
  expect_equal(end$x, c(0.9, 0.9, 0.7))
  expect_identical(end$k, c(1, 2, 3))
  expect_identical(nrow(run(list(k = c(1, 2, 3), c0 = c(0, 1)))[r$time == 0.1, ]), 6L)
  expect_error(run(list(k = 1, k = 2)), "`params` sets `k` twice")
  expect_error(sde_run(m, 1, init = list(x = ~ k * y), dt = 0.1, t_max = 0.1, backend = "cpu",
                       output = "moments"),
               "a formula over the parameters and pi, not the states or t")
})

test_that("multiplicative noise D() cannot differentiate refuses only the method that needs it", {
  skip_if_no_cc()
  local_model_cache()
  m <- sde_model(drift = list(x = ~ -x), noise = list(x = ~ 0.3 * abs(x)), name = "absnoise")
  expect_output(print(m), "methods: euler \\(Ito\\)$")
  r <- sde_run(m, 20, init = list(x = 1), dt = 0.01, t_max = 0.5, output = "moments",
               method = "euler", backend = "cpu", seed = 1)
  expect_true(all(is.finite(r$mean)))
  expect_error(sde_run(m, 20, init = list(x = 1), dt = 0.01, t_max = 0.5, output = "moments",
                       method = "srk2", backend = "cpu"),
               "integrates the Stratonovich form.*abs", class = "statphysgpu_method_refused")
})

test_that("arguments an output does not use are not silently ignored", {
  skip_if_no_cc()
  local_model_cache()
  m <- safety_ou("unused")
  expect_warning(sde_run(m, 5, init = list(x = 0), dt = 0.01, t_max = 0.1, backend = "cpu",
                         output = "moments", keep = 3),
                 "`keep` is ignored: output = \"moments\"", class = "statphysgpu_unused_argument")
  expect_warning(sde_run(m, 5, init = list(x = 0), dt = 0.01, t_max = 0.1, backend = "cpu",
                         record_every = 2),
                 "`record_every` is ignored", class = "statphysgpu_unused_argument")
  expect_warning(sde_run(m, 5, init = list(x = 0), dt = 0.01, t_max = 0.1, backend = "cpu",
                         output = "trajectories", at_passage = TRUE),
                 "`at_passage` is ignored", class = "statphysgpu_unused_argument")
})

test_that("the memory estimate counts what the engine and the result hold", {
  skip_if_no_cc()
  local_model_cache()
  m <- sde_model(drift = list(x = ~ -x, y = ~ x), noise = list(x = ~ 1), observe = list(z = ~ x * y),
                 name = "mem")
  r <- sde_run(m, 300, init = list(x = 0, y = 0), dt = 0.01, t_max = 0.5, output = "trajectories",
               keep = 300, record_every = 1, params = NULL, backend = "cpu", seed = 1)
  need <- statphysgpu:::sde_memory_need("trajectories", 1, 300, 2, 3, 51, 0, 300, 0, 1)
  # the engine's output array (NaN-filled doubles) and R's frame, 3 copies
  engine_out <- 300 * 51 * 3 * 8
  expect_gt(need, engine_out * 2 + 3 * as.numeric(object.size(as.data.frame(r))) * 0.9)
  # a run that cannot fit is refused before it starts, with the estimate
  expect_error(sde_run(m, 1e6, init = list(x = 0, y = 0), dt = 0.01, t_max = 1e3,
                       output = "trajectories", keep = 1e6, record_every = 1, backend = "cpu"),
               "the run would need about")
  # the precision error names what the model offers
  expect_error(sde_run(m, 2, init = list(x = 0, y = 0), dt = 0.1, t_max = 1, precision = "half",
                       output = "moments", backend = "cpu"),
               "`precision` must be one of \"single\" or \"double\" here")
})

test_that("NVRTC compiles the package's headers and the model's, never files of the working directory", {
  skip_if_no_nvrtc()
  m <- sde_model(drift = list(x = ~ -3 * x), name = "planted")
  ref <- statphysgpu:::sde_nvrtc_image(m, "sm_90", "single", "euler")
  d <- withr::local_tempdir("spplant")
  for (h in c("sde_model.h", "sde_args.h", "sde_prelude.h", "philox.h", "sp_common.h")) {
    writeLines("#error a planted header was compiled", file.path(d, h))
  }
  withr::local_dir(d)
  expect_identical(statphysgpu:::sde_nvrtc_image(m, "sm_90", "single", "euler"), ref)
})
