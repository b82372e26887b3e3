# What this machine offers, and the random streams every simulation uses.
library(statphysgpu)

cat("Backends on this machine:\n")
print(sp_backends())
cat("\nCPU threads:", sp_threads(), "\n")

# Draws 0..7 of stream 0 under seed 0: the first is Random123's known answer
# 0x6627e8d5 for Philox4x32-10 with counter 0 and key 0.
w <- philox_uint32(8, seed = 0)
print(data.frame(draw = 0:7, value = w,
                 hex = sprintf("%08x", as.integer(ifelse(w >= 2^31, w - 2^32, w)))))

# A million normals from stream 12: replica 12 of a simulation would use them.
z <- philox_normal(1e6, seed = 2026, stream = 12)
cat(sprintf("\n1e6 normals from stream 12: mean %.5f, variance %.5f, range [%.2f, %.2f]\n",
            mean(z), var(z), min(z), max(z)))

# Reproducible from R's RNG: seed = NULL takes the key from set.seed().
set.seed(1)
a <- philox_uniform(5)
set.seed(1)
b <- philox_uniform(5)
cat("set.seed() reproduces seed = NULL:", identical(a, b), "\n")
