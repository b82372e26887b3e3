# Your own model: the tilted washboard of Pierro et al. (2018) written as an SDE model,
# against the built-in escape_times() on the same case (in distribution:
# the two draw from different Philox purposes), on the GPU when there is
# one, else on the CPU.
library(statphysgpu)

washboard <- sde_model(
  drift = list(x = ~ v, v = ~ -beta * v + V0 * (gamma - sin(x))),
  noise = list(v = ~ sqrt(2 * beta * theta)),
  params = c(beta = 1, V0 = 1, gamma = 0.6, theta = 0.25),
  stop = ~ x > pi - asin(gamma),
  observe = list(energy = ~ v^2 / 2 - V0 * (cos(x) + gamma * x)),
  name = "washboard")
print(washboard)
cat(sde_code(washboard))

b <- sp_backends()
gpu <- any(b$backend == "gpu" & b$available)
n <- if (gpu) 2^18 else 2000
backend <- if (gpu) "gpu" else "cpu"
model <- sde_run(washboard, n, init = list(x = ~ asin(gamma), v = 0), dt = 0.02, t_max = 1e4,
                 method = "euler", seed = 1, backend = backend)
builtin <- escape_times(n, gamma = 0.6, V0 = 1, beta = 1, theta = 0.25, dt = 0.02,
                        t_max = 1e4, method = "euler", seed = 2, backend = backend)
print(model)
print(builtin)
cat(sprintf("two-sample Kolmogorov-Smirnov p-value: %.3g\n",
            suppressWarnings(stats::ks.test(model$value, builtin$value))$p.value))
plot(model, type = "survival")
