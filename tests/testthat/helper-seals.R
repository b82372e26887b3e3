# A result changed on purpose and sealed again as if it had been made so
# (see sp_seal()): the continuations check the seal first, and then what
# they read of the result; a resealed result reaches those later checks.
reseal <- function(x) statphysgpu:::sp_seal(x, names(attr(x, "sealed")))
