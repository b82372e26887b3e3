# Mode B's passes over all pairs with the sources in chunks (issue 50:
# src/gpu/sp_gpu_mb.c's sp_gpu_mb_pair_chunks, inst/cuda/mb.cu's
# mb_pair_sums_chunk): the parts that run without a GPU -- the chunks n
# alone decides, the plan's bit that turns them off, the pair kernels
# compiled with the chunks' counter.  Their numbers on a GPU: test-mb-gpu.R
# ("pairs in source chunks").

# (the models: helper-mb.R's mb_chunk_models())

test_that("the sources of all-pairs passes: chunks of whole tiles, about 1024 blocks a system, n alone decides", {
  ch <- function(n) .Call(statphysgpu:::C_sp_r_mb_pair_chunks, n)
  # c(chunks, tiles of 256 sources a chunk)
  expect_identical(ch(1e4), c(20L, 2L)) # 40 target blocks: 800 blocks
  expect_identical(ch(1e5), c(2L, 196L)) # 391 target blocks: 782 blocks
  expect_identical(ch(5000), c(20L, 1L))
  expect_identical(ch(2049), c(9L, 1L))
  expect_identical(ch(131072), c(2L, 256L))
  # one chunk (the passes as they were, bit for bit) past 512 target blocks
  expect_identical(ch(131073), c(1L, 513L))
  expect_identical(ch(3e6), c(1L, 11719L))
  for (n in c(2049, 3000, 5000, 10001, 33333, 65537, 1e5, 131072, 131073)) {
    r <- ch(n)
    tiles <- ceiling(n / 256)
    # whole tiles, no empty chunk, at most a chunk a tile
    expect_true((r[1] - 1) * r[2] < tiles && r[1] * r[2] >= tiles && r[1] <= tiles, label = n)
    expect_lte(r[1] * tiles, 1024 + tiles)
  }
})

test_that("the tuning option mb_pair_chunks = FALSE asks one chunk in mode B's plan", {
  m <- mb_chunk_models()$grav
  plan <- statphysgpu:::sde_mb_gpu_plan
  bit <- function(code) code %/% 64L %% 2L # SP_MB_PLAN_ONECHUNK
  expect_identical(bit(plan(m, 5000, "single", "yoshida4")$code), 0L)
  withr::with_options(list(statphysgpu.mb_pair_chunks = FALSE), {
    expect_identical(bit(plan(m, 5000, "single", "yoshida4")$code), 1L)
    expect_identical(bit(plan(m, 300, "single", "yoshida4")$code), 0L) # mode A: no chunks
  })
  withr::with_options(list(statphysgpu.mb_pair_chunks = "no"),
                      expect_error(plan(m, 5000, "single", "yoshida4"),
                                   "option statphysgpu.mb_pair_chunks must be TRUE or FALSE"))
})

test_that("the all-pairs passes and the pair observables' kernel compile with the chunks' counter (NVRTC)", {
  skip_if_no_nvrtc()
  local_kernel_cache()
  ms <- mb_chunk_models()
  adds <- function(s) lengths(regmatches(s, gregexpr("atom.global.add.u32", s, fixed = TRUE)))
  for (cs in list(c("od", "euler"), c("od", "srk2"), c("grav", "yoshida4"), c("lang", "baoab"))) {
    for (prec in c("single", "double")) {
      m <- ms[[cs[1]]]
      plan <- statphysgpu:::sde_mb_gpu_plan(m, 5000, prec, cs[2])
      ptx <- rawToChar(statphysgpu:::sde_nvrtc_image(m, "compute_90", prec, cs[2], cubin = FALSE,
                                                     source = "mb.cu", defines = plan$defines))
      ent <- strsplit(ptx, ".entry ", fixed = TRUE)[[1]][-1]
      names(ent) <- sub("\\(.*", "", sub("\n.*", "", ent))
      passes <- switch(cs[2], euler = "sp_mb_euler_kernel", srk2 = c("sp_mb_p1_kernel", "sp_mb_p2_kernel"),
                       "sp_mb_split_kernel")
      lab <- paste(cs, prec, collapse = " ")
      # a pass: the system's counter (mb_finish) and the target block's
      # chunks' counter; the observables' kernel: the chunks' counter
      for (k in passes) expect_gte(adds(ent[[k]]), 2, label = paste(lab, k))
      expect_gte(adds(ent[["sp_mb_obs_kernel"]]), 1, label = paste(lab, "obs"))
    }
  }
})
