# Issue 51, item 1: the README's install commands leave the vignettes
# installed (a tarball that R CMD build made, which builds them) and name
# what exists.  The README, DESCRIPTION and Makefile are read from the
# source tree (these tests skip where the tests run without it, as under
# R CMD check).

i51_source_file <- function(name) {
  f <- testthat::test_path("..", "..", name)
  if (!file.exists(f)) skip(sprintf("%s is not here (tests run outside the source tree)", name))
  readLines(f, warn = FALSE)
}

test_that("item 1: the README installs a built tarball of this version, with its vignettes", {
  readme <- i51_source_file("README.md")
  desc <- i51_source_file("DESCRIPTION")
  version <- sub("^Version: *", "", grep("^Version:", desc, value = TRUE))
  tarball <- sprintf("statphysgpu_%s.tar.gz", version)
  expect_true(any(grepl("^R CMD build \\.$", readme)))
  expect_true(any(grepl(sprintf("^R CMD INSTALL %s$", gsub(".", "\\.", tarball, fixed = TRUE)),
                        readme)))
  # every tarball named is this version's
  named <- unlist(regmatches(readme, gregexpr("statphysgpu_[0-9.-]+\\.tar\\.gz", readme)))
  expect_gt(length(named), 0)
  expect_true(all(named == tarball))
  # every vignette the README names exists
  v <- unlist(regmatches(readme, gregexpr("vignette\\(\"[^\"]+\"\\)", readme)))
  v <- sub("^vignette\\(\"([^\"]+)\"\\)$", "\\1", v)
  expect_gt(length(v), 5)
  expect_setequal(setdiff(v, sub("\\.Rmd$", "", list.files(test_path("..", "..", "vignettes"),
                                                           "\\.Rmd$"))), character())
})

test_that("item 1: make run installs a tarball built by R CMD build (vignettes included)", {
  mk <- i51_source_file("Makefile")
  from <- grep("^run:", mk)
  expect_length(from, 1L)
  to <- from + which(!grepl("^\t|^\\s*$", mk[-(1:from)]))[1] - 1L
  rule <- paste(mk[from:to], collapse = "\n")
  expect_match(rule, "CMD build")
  expect_match(rule, "CMD INSTALL[^\n]*\\$\\(TARBALL\\)")
  expect_false(grepl("CMD INSTALL[^\n]* \\.( |$)", rule))
})
