# Runs the tests of tests/slurm on the cluster that cluster.sh started, and
# writes "N passed, N failed, N skipped" to the file named by the first
# argument.  Run from tests/slurm (cluster.sh does).
#   Rscript --vanilla run-tests.R TOTALS_FILE
totals_file <- commandArgs(trailingOnly = TRUE)[1]
library(testthat)
library(statphysgpu)
res <- test_dir(".", reporter = ProgressReporter$new(show_praise = FALSE),
                load_package = "none", stop_on_failure = FALSE)
df <- as.data.frame(res)
n <- c(passed = sum(df$passed), failed = sum(df$failed) + sum(df$error),
       skipped = sum(df$skipped))
writeLines(sprintf("%d passed, %d failed, %d skipped", n[["passed"]], n[["failed"]],
                   n[["skipped"]]), totals_file)
