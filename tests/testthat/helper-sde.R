# Models of the SDE tests (test-sde.R, test-sde-gpu.R).

skip_if_no_cc <- function() {
  if (!sde_cpu_available()) testthat::skip(attr(sde_cpu_available(), "reason"))
}

# The tilted washboard of paper 000 (escape_times()) as a model.
sde_washboard <- function() {
  sde_model(
    drift = list(x = ~ v, v = ~ -beta * v + V0 * (gamma - sin(x))),
    noise = list(v = ~ sqrt(2 * beta * theta)),
    params = c(beta = 1, V0 = 1, gamma = 0.5, theta = 0.2),
    stop = ~ x > pi - asin(gamma),
    observe = list(energy = ~ v^2 / 2 - V0 * (cos(x) + gamma * x)),
    name = "washboard")
}
