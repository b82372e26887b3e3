# The Slurm job template (its jobs run in tests/slurm, by `make test-slurm`,
# on a one-node Slurm cluster; here only what needs no scheduler).

test_that("slurm_template() is the template shipped with the package", {
  p <- slurm_template()
  expect_identical(p, system.file("templates", "slurm.tmpl", package = "statphysgpu"))
  expect_true(file.exists(p))
  l <- readLines(p)
  expect_identical(l[1], "#!/bin/bash")
  # what the help promises: one GPU a worker when asked, Slurm's
  # CUDA_VISIBLE_DEVICES kept, none seen without a GPU request, no forks,
  # one R process a job running batchtools' job collection
  expect_true(any(grepl("^#SBATCH --gres=gpu:<%= ngpus %>$", l)))
  expect_true(any(grepl("^#SBATCH --cpus-per-task=<%= ncpus %>$", l)))
  expect_true(any(grepl("^export CUDA_VISIBLE_DEVICES=$", l)))
  expect_true(all(c("export R_PARALLELLY_FORK_ENABLE=false",
                    "export R_FUTURE_FORK_ENABLE=false") %in% l))
  expect_identical(sum(grepl("doJobCollection", l)), 1L)
  expect_match(l[length(l)], "^exec Rscript -e 'batchtools::doJobCollection")
})
