library(testthat)
library(statphysgpu)

test_check("statphysgpu")
