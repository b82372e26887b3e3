# The contract every engine keeps (DESIGN.md, "Engines share one contract"),
# as tests parameterised by the model: a new engine gets them by one call of
# engine_contract_tests(spec) in its test file.
#
# spec, a list:
#   name      label of the tests
#   run       function(n, first = 1, seed = 1, backend = "cpu", ...) running n
#             replicas from replica `first` (the engine's first_* argument)
#   key       function(x): what must be identical between runs (default:
#             as.data.frame)
#   combine   function(a, b): chunks into one result (default: rbind)
#   n         replicas for the CPU tests (small: CI has two cores)
#   bad       list of list(args = <named arguments for run()>, error = <regex>)
#   long      function(backend): a call that runs for several seconds, for the
#             interrupt tests
#   warm      function(backend), optional: a quick call run before the
#             interrupt's clock starts (loads the kernel that long() uses, so
#             that the interrupt cannot fall into its compilation)
#   partial   function(x, backend): expectations on an interrupted result of long(backend)
#   gpu_agree function(cpu, gpu): expectations comparing the CPU and GPU
#             results of run(..., precision = "double") (NULL: the engine
#             has no GPU backend yet)
#   oom       function(): a GPU call that cannot fit in the memory left
#             (about 512 MiB free; see below)
#   small     function(backend): a quick call (after the OOM test)
engine_contract_tests <- function(spec) {
  key <- spec$key %||% function(x) as.data.frame(x)
  combine <- spec$combine %||% function(a, b) rbind(a, b)
  n <- spec$n %||% 40
  run <- spec$run
  nm <- spec$name

  test_that(paste0(nm, ": chunks combine into the one-call result"), {
    m <- 2 * floor(n / 6) # even: a Philox normal is half of a pair
    whole <- run(n)
    parts <- combine(run(m), run(n - m, first = m + 1))
    expect_identical(key(parts), key(whole))
  })

  test_that(paste0(nm, ": the same seed gives the same result, another seed another"), {
    a <- run(n, seed = 11)
    expect_identical(key(run(n, seed = 11)), key(a))
    expect_false(identical(key(run(n, seed = 12)), key(a)))
  })

  test_that(paste0(nm, ": the thread count does not change the result"), {
    one <- with_threads(1, run(n))
    two <- with_threads(2, run(n))
    expect_identical(key(two), key(one))
  })

  if (!is.null(spec$bad)) {
    test_that(paste0(nm, ": bad input gets a clear error naming the argument"), {
      for (b in spec$bad) {
        expect_error(do.call(run, b$args), b$error, class = "statphysgpu_error")
      }
    })
  }

  if (!is.null(spec$long)) {
    test_that(paste0(nm, ": an interrupt returns what finished, flagged, never an error"), {
      skip_on_os("windows")
      if (!is.null(spec$warm)) spec$warm("cpu")
      # (spec$interrupt_s: later for an engine whose first block takes long
      # on a loaded machine)
      job <- interrupt_after(spec$interrupt_s %||% 1)
      expect_warning(x <- spec$long("cpu"), "interrupted", class = "statphysgpu_interrupted")
      parallel::mccollect(job)
      spec$partial(x, "cpu")
    })
  }

  if (!is.null(spec$gpu_agree)) test_that(paste0(nm, ": CPU double equals GPU double to rounding"), {
    skip_if_no_gpu()
    cpu <- run(max(n, 2000), backend = "cpu", precision = "double")
    gpu <- run(max(n, 2000), backend = "gpu", precision = "double")
    expect_identical(attr(gpu, "backend") %||% "gpu", "gpu")
    spec$gpu_agree(cpu, gpu)
  })

  if (!is.null(spec$long)) {
    test_that(paste0(nm, ": an interrupt on the GPU returns what finished; nothing leaks"), {
      skip_if_no_gpu()
      skip_on_os("windows")
      if (!is.null(spec$warm)) spec$warm("gpu")
      live <- gpu_live_allocations()
      job <- interrupt_after(1.5)
      expect_warning(x <- spec$long("gpu"), "interrupted", class = "statphysgpu_interrupted")
      parallel::mccollect(job)
      spec$partial(x, "gpu")
      expect_identical(gpu_live_allocations(), live)
    })
  }

  if (!is.null(spec$oom)) {
    test_that(paste0(nm, ": a GPU run that does not fit fails with the size and frees everything"), {
      skip_if_no_gpu()
      ref <- spec$small("gpu") # kernels compiled and loaded first
      live <- gpu_live_allocations()
      before <- .Call(statphysgpu:::C_sp_r_gpu_mem_info, 0L)[1]
      hold <- .Call(statphysgpu:::C_sp_r_gpu_reserve_test, 0L, before - 2^29)
      expect_error(spec$oom(), "needs [0-9.]+ GiB of device memory, but [0-9.]+ GiB of")
      expect_identical(gpu_live_allocations(), live + 1) # only the held buffer
      .Call(statphysgpu:::C_sp_r_gpu_release_test, hold)
      expect_identical(gpu_live_allocations(), live)
      expect_identical(key(spec$small("gpu")), key(ref))
    })
  }
}

`%||%` <- function(a, b) if (is.null(a)) b else a
