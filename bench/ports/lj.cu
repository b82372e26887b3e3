// lj.cu: the Lennard-Jones fluid of issue 49 as a plain CUDA port: LJ
// truncated and shifted at rc = 2.5, density 0.8, T = 1.5, gamma = 1, in a
// periodic cube, single precision; Langevin by BAOAB (dt = 0.005) or
// overdamped Brownian dynamics by Euler-Maruyama (dt = 1e-4), normals from
// cuRAND's Philox (curand_init(seed, particle, 4 step) + curand_normal4: no
// generator state stored), built with --use_fast_math.
//
// Mode 0, one system of n particles: a cell list rebuilt every step on the
// device -- cells of side >= rc (floor(L / rc) a side), the cell of each
// particle and its slot by an atomic count, an exclusive scan of the counts
// (CUB), a scatter of positions into cell order -- then one thread a
// particle (in cell order) loops over the 27 neighbouring cells with the
// minimum image, sums its force and moves its particle: Euler, or BAOAB's
// closing half kick of this step fused with the next step's half kick,
// half drift, Ornstein-Uhlenbeck step and half drift (a first pass kicks by
// dt / 2 only, a last pass only closes the step).
// Mode 1, many systems of 256 (the box, L = 6.84, is under 3 rc, so a cell
// list has nothing to skip): a block a system, a thread a particle, the
// system's positions in shared memory, all 255 partners with the minimum
// image, every step of the run in one launch.
//
//   lj <mode: 0 one system, 1 systems of 256 = 0> <n: particles (mode 0,
//      1e6) or systems (mode 1, 1e4)> <steps = 200> <method: 0 euler,
//      1 baoab = 1>
//
// Prints particle-steps per second of kernel time, after a warm-up run; on
// stderr the potential energy per particle and the virial pressure
// P = rho T + W / (3 V) averaged every 10th step of the timed run (to check
// the port against tests/testthat/helper-lj-reference.R).
#include <cmath>

#include <cub/cub.cuh>
#include <curand_kernel.h>

#include "common.cuh"

#define BLOCK 256
#define NSYS 256 // particles of a system in mode 1
#define EVERY 10 // steps between records of U and W

struct Par {
  float L, invL, rc2, ushift, dt, T, c1, c2, sbd; // sbd = sqrt(2 T dt / gamma)
};

// u(r) - u(rc) and r f(r) for r^2 = r2 < rc^2, f = -du/dr: the force on i
// from j is (r f / r^2) (r_i - r_j)
__device__ __forceinline__ void lj_pair(float r2, float ushift, float &u, float &rf) {
  const float ir2 = 1.0f / r2;
  const float ir6 = ir2 * ir2 * ir2;
  u = 4.0f * ir6 * (ir6 - 1.0f) - ushift;
  rf = 24.0f * ir6 * (2.0f * ir6 - 1.0f);
}

__device__ __forceinline__ float min_image(float d, float L, float invL) {
  return d - L * rintf(d * invL);
}

__device__ __forceinline__ float wrap(float x, float L, float invL) {
  return x - L * floorf(x * invL);
}

__device__ __forceinline__ float4 normals(unsigned long long seed, long long i, long long step) {
  curandStatePhilox4_32_10_t st;
  curand_init(seed, i, 4ull * (unsigned long long)step, &st);
  return curand_normal4(&st);
}

// block sum of two doubles into acc[0], acc[1]
__device__ void block_add(double a, double b, double *acc) {
  __shared__ double sa[BLOCK / 32], sb[BLOCK / 32];
  for (int o = 16; o > 0; o >>= 1) {
    a += __shfl_down_sync(0xffffffffu, a, o);
    b += __shfl_down_sync(0xffffffffu, b, o);
  }
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
  if (l == 0) {
    sa[w] = a;
    sb[w] = b;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    double ta = 0, tb = 0;
    for (int k = 0; k < (int)(blockDim.x / 32); k++) {
      ta += sa[k];
      tb += sb[k];
    }
    atomicAdd(&acc[0], ta);
    atomicAdd(&acc[1], tb);
  }
}

// ---- mode 0: one system, cell list ----------------------------------------

// every system (of n particles) starts on the same lattice -- n of the m^3
// sites of a simple cubic lattice of spacing a, evenly spread -- with its
// own Maxwell velocities
__global__ void start(float4 *x, float4 *v, long long ntot, int n, int m, float a, float sdv) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= ntot) return;
  const long long k = i % n;
  const long long s = (long long)((double)k * ((double)m * m * m - 1) / (n > 1 ? n - 1 : 1) + 0.5);
  const int ix = (int)(s % m), iy = (int)((s / m) % m), iz = (int)(s / ((long long)m * m));
  x[i] = make_float4((ix + 0.5f) * a, (iy + 0.5f) * a, (iz + 0.5f) * a, 0);
  const float4 g = normals(7, i, 0);
  v[i] = make_float4(sdv * g.x, sdv * g.y, sdv * g.z, 0);
}

__device__ __forceinline__ int cell_of(float4 p, int nc, float cw) {
  int cx = min((int)(p.x / cw), nc - 1), cy = min((int)(p.y / cw), nc - 1),
      cz = min((int)(p.z / cw), nc - 1);
  return (cz * nc + cy) * nc + cx;
}

__global__ void bin(const float4 *x, int n, int nc, float cw, int *cell, int *slot,
                    int *count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int c = cell_of(x[i], nc, cw);
  cell[i] = c;
  slot[i] = atomicAdd(&count[c], 1);
}

__global__ void scatter(const float4 *x, int n, const int *cell, const int *slot,
                        const int *cstart, float4 *sx) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = x[i];
  p.w = __int_as_float(i);
  sx[cstart[cell[i]] + slot[i]] = p;
}

// METHOD 0 euler, 1 baoab.  kick: the velocity kick factor (dt / 2 on the
// first pass, dt after); drift: false on the closing pass (kick only).
template <int METHOD, bool REC>
__global__ void force_move(const float4 *sx, const int *cstart, const int *count, int n,
                           int nc, float cw, Par q, float kick, bool drift, float4 *x,
                           float4 *v, unsigned long long seed, long long step, double *acc) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  double ue = 0, we = 0;
  if (k < n) {
    const float4 p = sx[k];
    const int i = __float_as_int(p.w);
    const int cx = min((int)(p.x / cw), nc - 1), cy = min((int)(p.y / cw), nc - 1),
              cz = min((int)(p.z / cw), nc - 1);
    float fx = 0, fy = 0, fz = 0, us = 0, ws = 0;
    for (int dz = -1; dz <= 1; dz++) {
      const int zz = (cz + dz + nc) % nc;
      for (int dy = -1; dy <= 1; dy++) {
        const int yy = (cy + dy + nc) % nc;
        for (int dx = -1; dx <= 1; dx++) {
          const int c = (zz * nc + yy) * nc + (cx + dx + nc) % nc;
          const int b = cstart[c], e = b + count[c];
          for (int j = b; j < e; j++) {
            if (j == k) continue;
            const float4 o = sx[j];
            const float rx = min_image(p.x - o.x, q.L, q.invL);
            const float ry = min_image(p.y - o.y, q.L, q.invL);
            const float rz = min_image(p.z - o.z, q.L, q.invL);
            const float r2 = rx * rx + ry * ry + rz * rz;
            if (r2 < q.rc2) {
              float u, rf;
              lj_pair(r2, q.ushift, u, rf);
              const float s = rf / r2;
              fx += s * rx;
              fy += s * ry;
              fz += s * rz;
              if (REC) {
                us += u;
                ws += rf;
              }
            }
          }
        }
      }
    }
    if (REC) {
      ue = 0.5 * us;
      we = 0.5 * ws;
    }
    float px = p.x, py = p.y, pz = p.z;
    if (METHOD == 0) {
      const float4 g = normals(seed, i, step);
      px += q.dt * fx + q.sbd * g.x;
      py += q.dt * fy + q.sbd * g.y;
      pz += q.dt * fz + q.sbd * g.z;
    } else {
      float4 w = v[i];
      w.x += kick * fx;
      w.y += kick * fy;
      w.z += kick * fz;
      if (drift) {
        const float h = 0.5f * q.dt;
        const float4 g = normals(seed, i, step);
        px += h * w.x;
        py += h * w.y;
        pz += h * w.z;
        w.x = q.c1 * w.x + q.c2 * g.x;
        w.y = q.c1 * w.y + q.c2 * g.y;
        w.z = q.c1 * w.z + q.c2 * g.z;
        px += h * w.x;
        py += h * w.y;
        pz += h * w.z;
      }
      v[i] = w;
    }
    x[i] = make_float4(wrap(px, q.L, q.invL), wrap(py, q.L, q.invL), wrap(pz, q.L, q.invL), 0);
  }
  if (REC) block_add(ue, we, acc);
}

struct One {
  int n, nc, grid;
  float cw;
  Par q;
  float4 *x, *v, *sx;
  int *cell, *slot, *count, *cstart;
  void *tmp = nullptr;
  size_t tmp_bytes = 0;
  double *acc;

  void cells() {
    const int ncell = nc * nc * nc;
    CK(cudaMemsetAsync(count, 0, ncell * sizeof(int)));
    bin<<<grid, BLOCK>>>(x, n, nc, cw, cell, slot, count);
    CK(cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, count, cstart, ncell));
    scatter<<<grid, BLOCK>>>(x, n, cell, slot, cstart, sx);
  }
  template <int METHOD>
  void pass(float kick, bool drift, unsigned long long seed, long long step, bool rec) {
    cells();
    if (rec)
      force_move<METHOD, true><<<grid, BLOCK>>>(sx, cstart, count, n, nc, cw, q, kick, drift, x,
                                                v, seed, step, acc);
    else
      force_move<METHOD, false><<<grid, BLOCK>>>(sx, cstart, count, n, nc, cw, q, kick, drift,
                                                 x, v, seed, step, acc);
  }
  // nsteps steps from step k0; BAOAB: a first pass (kick dt / 2), nsteps - 1
  // fused passes (kick dt) and a closing pass (kick dt / 2, no drift)
  void run(int method, long long k0, long long nsteps, unsigned long long seed, bool rec) {
    for (long long s = 0; s < nsteps; s++) {
      const bool r = rec && (s % EVERY == EVERY - 1);
      // a pass's forces (and U, W) are those of the positions the last
      // step left
      if (method == 0)
        pass<0>(0, true, seed, k0 + s, r);
      else
        pass<1>(s == 0 ? 0.5f * q.dt : q.dt, true, seed, k0 + s, r);
    }
    if (method == 1) pass<1>(0.5f * q.dt, false, seed, 0, false);
    CK(cudaGetLastError());
  }
};

// ---- mode 1: systems of 256 -----------------------------------------------

// the force on particle t of the system in shared memory sp
__device__ __forceinline__ void force_all(const float4 *sp, int t, const Par &q, float &fx,
                                          float &fy, float &fz, float &us, float &ws) {
  const float4 p = sp[t];
  fx = fy = fz = us = ws = 0;
  for (int j = 0; j < NSYS; j++) {
    if (j == t) continue;
    const float4 o = sp[j];
    const float rx = min_image(p.x - o.x, q.L, q.invL);
    const float ry = min_image(p.y - o.y, q.L, q.invL);
    const float rz = min_image(p.z - o.z, q.L, q.invL);
    const float r2 = rx * rx + ry * ry + rz * rz;
    if (r2 < q.rc2) {
      float u, rf;
      lj_pair(r2, q.ushift, u, rf);
      const float s = rf / r2;
      fx += s * rx;
      fy += s * ry;
      fz += s * rz;
      us += u;
      ws += rf;
    }
  }
}

template <int METHOD>
__global__ void __launch_bounds__(NSYS) systems(float4 *x, float4 *v, Par q, long long k0,
                                                long long nsteps, unsigned long long seed,
                                                bool rec, double *acc) {
  __shared__ float4 sp[NSYS];
  const int t = threadIdx.x;
  const long long i = (long long)blockIdx.x * NSYS + t;
  float4 p = x[i], w = v[i];
  float fx, fy, fz, us, ws;
  double ue = 0, we = 0;
  sp[t] = p;
  __syncthreads();
  force_all(sp, t, q, fx, fy, fz, us, ws);
  const float h = 0.5f * q.dt;
  for (long long s = 0; s < nsteps; s++) {
    const float4 g = normals(seed, i, k0 + s);
    if (METHOD == 0) {
      p.x += q.dt * fx + q.sbd * g.x;
      p.y += q.dt * fy + q.sbd * g.y;
      p.z += q.dt * fz + q.sbd * g.z;
    } else {
      w.x += h * fx; // B
      w.y += h * fy;
      w.z += h * fz;
      p.x += h * w.x; // A
      p.y += h * w.y;
      p.z += h * w.z;
      w.x = q.c1 * w.x + q.c2 * g.x; // O
      w.y = q.c1 * w.y + q.c2 * g.y;
      w.z = q.c1 * w.z + q.c2 * g.z;
      p.x += h * w.x; // A
      p.y += h * w.y;
      p.z += h * w.z;
    }
    p.x = wrap(p.x, q.L, q.invL);
    p.y = wrap(p.y, q.L, q.invL);
    p.z = wrap(p.z, q.L, q.invL);
    __syncthreads(); // every thread done reading sp
    sp[t] = p;
    __syncthreads();
    force_all(sp, t, q, fx, fy, fz, us, ws);
    if (METHOD == 1) {
      w.x += h * fx; // B
      w.y += h * fy;
      w.z += h * fz;
    }
    if (rec && s % EVERY == EVERY - 1) {
      ue += 0.5 * us;
      we += 0.5 * ws;
    }
  }
  x[i] = p;
  v[i] = w;
  if (rec) block_add(ue, we, acc);
}

int main(int argc, char **argv) {
  const int mode = (int)arg_or(argc, argv, 1, 0);
  const double nsize = arg_or(argc, argv, 2, mode == 0 ? 1e6 : 1e4);
  const long long steps = (long long)arg_or(argc, argv, 3, 200);
  const int method = (int)arg_or(argc, argv, 4, 1);
  const double rho = 0.8, T = 1.5, gamma = 1, rc = 2.5;
  const double dt = method == 0 ? 1e-4 : 0.005;
  const int nper = mode == 0 ? (int)nsize : NSYS;
  const long long nsys = mode == 0 ? 1 : (long long)nsize;
  const long long ntot = nsys * nper;
  const double L = std::cbrt(nper / rho);
  Par q;
  q.L = (float)L;
  q.invL = (float)(1 / L);
  q.rc2 = (float)(rc * rc);
  q.ushift = (float)(4 * (std::pow(rc, -12) - std::pow(rc, -6)));
  q.dt = (float)dt;
  q.T = (float)T;
  q.c1 = (float)std::exp(-gamma * dt);
  q.c2 = (float)std::sqrt((1 - std::exp(-2 * gamma * dt)) * T);
  q.sbd = (float)std::sqrt(2 * T * dt / gamma);
  if (L < 2 * rc) {
    std::fprintf(stderr, "box side %g < 2 rc: too few particles\n", L);
    return 1;
  }
  float4 *x, *v;
  double *acc;
  CK(cudaMalloc(&x, ntot * sizeof(float4)));
  CK(cudaMalloc(&v, ntot * sizeof(float4)));
  CK(cudaMalloc(&acc, 2 * sizeof(double)));
  const int m = (int)std::ceil(std::cbrt((double)nper) - 1e-9);
  start<<<(unsigned)((ntot + BLOCK - 1) / BLOCK), BLOCK>>>(x, v, ntot, nper, m, (float)(L / m),
                                                         (float)std::sqrt(T));
  CK(cudaGetLastError());
  const long long warm = 200;
  double ms = 0;
  if (mode == 0) {
    One o;
    o.n = nper;
    o.nc = (int)std::floor(L / rc);
    if (o.nc < 3) {
      std::fprintf(stderr, "fewer than 3 cells a side: use mode 1\n");
      return 1;
    }
    o.cw = (float)(L / o.nc);
    o.q = q;
    o.grid = (nper + BLOCK - 1) / BLOCK;
    o.x = x;
    o.v = v;
    o.acc = acc;
    const int ncell = o.nc * o.nc * o.nc;
    CK(cudaMalloc(&o.sx, nper * sizeof(float4)));
    CK(cudaMalloc(&o.cell, nper * sizeof(int)));
    CK(cudaMalloc(&o.slot, nper * sizeof(int)));
    CK(cudaMalloc(&o.count, ncell * sizeof(int)));
    CK(cudaMalloc(&o.cstart, ncell * sizeof(int)));
    CK(cub::DeviceScan::ExclusiveSum(nullptr, o.tmp_bytes, o.count, o.cstart, ncell));
    CK(cudaMalloc(&o.tmp, o.tmp_bytes));
    o.run(method, 0, warm, 2, false);
    CK(cudaMemset(acc, 0, 2 * sizeof(double)));
    ms = timed_ms([&] { o.run(method, warm, steps, 1, true); });
    std::fprintf(stderr, "lj port (one system, cell list %d^3): ", o.nc);
  } else {
    auto launch = [&](long long k0, long long ns, unsigned long long seed, bool rec) {
      if (method == 0)
        systems<0><<<(unsigned)nsys, NSYS>>>(x, v, q, k0, ns, seed, rec, acc);
      else
        systems<1><<<(unsigned)nsys, NSYS>>>(x, v, q, k0, ns, seed, rec, acc);
      CK(cudaGetLastError());
    };
    launch(0, warm, 2, false);
    CK(cudaMemset(acc, 0, 2 * sizeof(double)));
    ms = timed_ms([&] { launch(warm, steps, 1, true); });
    std::fprintf(stderr, "lj port (%lld systems of %d, all pairs): ", nsys, NSYS);
  }
  double h[2];
  CK(cudaMemcpy(h, acc, sizeof(h), cudaMemcpyDeviceToHost));
  const double nrec = (double)(steps / EVERY) * nsys; // records of a system, all systems
  const double V = L * L * L;
  std::fprintf(stderr, "%s dt = %g, n = %lld, %lld steps, %.3f s; U/N = %.4f, P = %.4f\n",
               method == 0 ? "euler" : "baoab", dt, ntot, steps, ms / 1000,
               h[0] / (nrec * nper), rho * T + h[1] / nrec / (3 * V));
  print_rate((double)ntot * (double)steps / (ms / 1000), "particle-steps/s");
  return 0;
}
