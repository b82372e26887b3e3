# The one run path (issue 23): models as descriptors run by one generic
# entry, the error record, the tuning options.

run_model <- function(name, job) {
  .Call(statphysgpu:::C_sp_r_model_run, name, job, "", integer(), FALSE)
}

escape_job <- function(n = 3) {
  conds <- list(g0 = 0.5, dg = 0, V0 = 1, beta = 1, h = 0.01, sigma = sqrt(2 * 0.2 * 0.01),
                phi0 = asin(0.5), th = pi - asin(0.5), vcens = 1, kmax = 100, stream0 = 0,
                start_table = -1, start_lo = 0, start_step = 0, start_vsd = 0)
  list(conds = lapply(conds, as.double), tables = double(), n = n, replica0 = c(0, 0),
       seed = c(1, 0), heun = TRUE, single = FALSE, resume = statphysgpu:::ESCAPE_NO_RESUME)
}

test_that("the generic entry runs a model by name and returns its outputs by name", {
  r <- run_model("escape", escape_job())
  expect_named(r, c("value", "status", "end_phi", "end_v", "end_frac", "end_step", "end_hit",
                    "useful_steps", "issued_steps", "finished", "run"))
  expect_length(r$value, 3)
  expect_type(r$status, "integer")
  expect_named(r$run, c("seconds", "rounds", "interrupted", "setup", "collect"))
  expect_identical(r$run[c("setup", "collect")], c(setup = 0, collect = 0)) # CPU: none
  # the same paths as escape_times() with these parameters (t_max = 1)
  x <- escape_times(3, 0.5, 1, 1, 0.2, 0.01, 1, seed = 1, backend = "cpu", progress = FALSE)
  expect_identical(x$value, r$value)
  # the fields are read by name: their order does not matter
  job <- escape_job()
  expect_identical(run_model("escape", job[rev(names(job))])$value, r$value)
})

test_that("the generic entry refuses a job that does not match the model", {
  job <- escape_job()
  expect_error(run_model("nothing", job), "no model 'nothing'")
  expect_error(run_model("escape", job[-1]), "has 7 fields, the model 8")
  bad <- job
  names(bad)[3] <- "m"
  expect_error(run_model("escape", bad), "lacks 'n'")
  expect_error(run_model("escape", modifyList(job, list(n = 2.5))), "'n' = 2.5 is not a whole")
  expect_error(run_model("escape", modifyList(job, list(tables = 1L))), "'tables' must be a double")
  expect_error(run_model("escape", modifyList(job, list(seed = 1))), "c\\(lo, hi\\)")
  bad <- job
  bad$conds$beta <- NULL
  expect_error(run_model("escape", bad), "must be a list of 15 named columns")
  bad <- job
  bad$conds$kmax <- c(1, 2)
  expect_error(run_model("escape", bad), "'kmax' missing or not 1")
})

test_that("every simulator runs through the one entry: no positional .Call of a model is left", {
  ns <- asNamespace("statphysgpu")
  entries <- grep("^C_sp_r_(escape|driven|kuramoto|vmc|xorsat|lrmd|sde|ams|philox)$", ls(ns, all.names = TRUE),
                  value = TRUE)
  expect_identical(entries, character())
})

test_that("inside a run the first failure's message wins; outside it the last", {
  expect_identical(.Call(statphysgpu:::C_sp_r_error_rule_test), c("first", "third"))
})

test_that("tuning options are read in one place, each checked", {
  withr::local_options(statphysgpu.mb_blocks_per_sm = -1)
  expect_error(statphysgpu:::sp_tuning("mb_blocks_per_sm"),
               "option statphysgpu.mb_blocks_per_sm must be \"auto\" or a whole number from 0",
               fixed = TRUE)
  withr::local_options(statphysgpu.mb_pair_chunks = "yes")
  expect_error(statphysgpu:::sp_tuning("mb_pair_chunks"), "must be TRUE or FALSE, not \"yes\"")
  withr::local_options(statphysgpu.mb_pair_chunks = NULL)
  expect_true(statphysgpu:::sp_tuning("mb_pair_chunks"))
  # no simulator reads an option of its own
  fns <- Filter(is.function, mget(ls(asNamespace("statphysgpu")), envir = asNamespace("statphysgpu")))
  reads <- names(Filter(function(f) any(grepl("getOption(\"statphysgpu.", deparse(f), fixed = TRUE)), fns))
  expect_identical(reads, "cache_configured") # the cache folder: a user's setting
})
