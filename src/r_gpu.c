/* .Call glue for the GPU backend: status, devices, NVRTC, modules, draws. */
#include <stdlib.h>
#include <string.h>

#include "r_hooks.h"
#include "r_util.h"

#include "core/sp_error.h"
#include "core/sp_hash.h"
#include "gpu/sp_gpu.h"
#include "gpu/sp_gpu_rng.h"

static SEXP mkstr_or_na(const char *s) {
  return (s == NULL || s[0] == '\0') ? Rf_ScalarString(NA_STRING) : Rf_mkString(s);
}

SEXP sp_r_gpu_status(void) {
  const char *names[] = {"available", "reason", "devices", "driver_version",
                         "nvrtc_available", "nvrtc_reason", "nvrtc_version",
                         "nvrtc_path", "cuda_home", "search_path", ""};
  int ok = sp_gpu_load() == SP_OK;
  int nv_ok = sp_nvrtc_load() == SP_OK, maj = 0, min = 0;
  char ver[32] = "";
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  sp_nvrtc_version(&maj, &min);
  if (nv_ok) snprintf(ver, sizeof ver, "%d.%d", maj, min);
  SET_VECTOR_ELT(out, 0, Rf_ScalarLogical(ok));
  SET_VECTOR_ELT(out, 1, mkstr_or_na(ok ? "" : sp_gpu_reason()));
  SET_VECTOR_ELT(out, 2, Rf_ScalarInteger(sp_gpu_device_count()));
  SET_VECTOR_ELT(out, 3, Rf_ScalarInteger(sp_gpu_driver_version()));
  SET_VECTOR_ELT(out, 4, Rf_ScalarLogical(nv_ok));
  SET_VECTOR_ELT(out, 5, mkstr_or_na(nv_ok ? "" : sp_nvrtc_reason()));
  SET_VECTOR_ELT(out, 6, mkstr_or_na(ver));
  SET_VECTOR_ELT(out, 7, mkstr_or_na(nv_ok ? sp_nvrtc_path() : ""));
  SET_VECTOR_ELT(out, 8, mkstr_or_na(nv_ok ? sp_nvrtc_home() : ""));
  SET_VECTOR_ELT(out, 9, Rf_mkString(sp_gpu_search_path()));
  UNPROTECT(1);
  return out;
}

SEXP sp_r_gpu_devices(SEXP with_free) {
  const char *names[] = {"id", "name", "compute_capability", "multiprocessors",
                         "max_threads_per_sm", "clock_mhz", "l2_cache_mb",
                         "total_memory", "free_memory", ""};
  int n = sp_gpu_device_count(), i, wf = sp_r_int(with_free);
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SEXP id = PROTECT(Rf_allocVector(INTSXP, n));
  SEXP nm = PROTECT(Rf_allocVector(STRSXP, n));
  SEXP cc = PROTECT(Rf_allocVector(STRSXP, n));
  SEXP sm = PROTECT(Rf_allocVector(INTSXP, n));
  SEXP tps = PROTECT(Rf_allocVector(INTSXP, n));
  SEXP clk = PROTECT(Rf_allocVector(REALSXP, n));
  SEXP l2 = PROTECT(Rf_allocVector(REALSXP, n));
  SEXP tot = PROTECT(Rf_allocVector(REALSXP, n));
  SEXP fr = PROTECT(Rf_allocVector(REALSXP, n));
  for (i = 0; i < n; i++) {
    sp_gpu_device_info info;
    char ccs[16];
    sp_r_check(sp_gpu_device_info_get(i, wf, &info));
    INTEGER(id)[i] = i;
    SET_STRING_ELT(nm, i, Rf_mkChar(info.name));
    snprintf(ccs, sizeof ccs, "%d.%d", info.cc_major, info.cc_minor);
    SET_STRING_ELT(cc, i, Rf_mkChar(ccs));
    INTEGER(sm)[i] = info.multiprocessors;
    INTEGER(tps)[i] = info.max_threads_per_sm;
    REAL(clk)[i] = info.clock_khz / 1000.0;
    REAL(l2)[i] = info.l2_bytes / 1048576.0;
    REAL(tot)[i] = info.total_memory;
    REAL(fr)[i] = info.free_memory < 0 ? NA_REAL : info.free_memory;
  }
  SET_VECTOR_ELT(out, 0, id);
  SET_VECTOR_ELT(out, 1, nm);
  SET_VECTOR_ELT(out, 2, cc);
  SET_VECTOR_ELT(out, 3, sm);
  SET_VECTOR_ELT(out, 4, tps);
  SET_VECTOR_ELT(out, 5, clk);
  SET_VECTOR_ELT(out, 6, l2);
  SET_VECTOR_ELT(out, 7, tot);
  SET_VECTOR_ELT(out, 8, fr);
  UNPROTECT(10);
  return out;
}

SEXP sp_r_nvrtc_archs(void) {
  int archs[128], n = 0, i;
  SEXP out;
  sp_r_check(sp_nvrtc_archs(archs, 128, &n));
  out = PROTECT(Rf_allocVector(INTSXP, n));
  for (i = 0; i < n; i++) INTEGER(out)[i] = archs[i];
  UNPROTECT(1);
  return out;
}

/* Compile; returns list(ok, image (raw or NULL), log). */
SEXP sp_r_nvrtc_compile(SEXP src, SEXP name, SEXP opts, SEXP cubin) {
  const char *names[] = {"ok", "image", "log", "error", ""};
  int nopts = Rf_length(opts), i, st;
  const char **o = (const char **)R_alloc((size_t)(nopts > 0 ? nopts : 1), sizeof(char *));
  char *image = NULL, *log = NULL;
  size_t size = 0;
  SEXP out, img = R_NilValue;
  for (i = 0; i < nopts; i++) o[i] = CHAR(STRING_ELT(opts, i));
  st = sp_nvrtc_compile(CHAR(STRING_ELT(src, 0)), CHAR(STRING_ELT(name, 0)), o, nopts,
                        sp_r_int(cubin), &image, &size, &log);
  if (st != SP_OK && st != SP_ERR_NVRTC) {
    free(image);
    free(log);
    sp_r_check(st);
  }
  out = PROTECT(Rf_mkNamed(VECSXP, names));
  if (st == SP_OK) {
    img = PROTECT(Rf_allocVector(RAWSXP, (R_xlen_t)size));
    memcpy(RAW(img), image, size);
  } else {
    PROTECT(img);
  }
  SET_VECTOR_ELT(out, 0, Rf_ScalarLogical(st == SP_OK));
  SET_VECTOR_ELT(out, 1, img);
  SET_VECTOR_ELT(out, 2, Rf_mkString(log != NULL ? log : ""));
  SET_VECTOR_ELT(out, 3, Rf_mkString(st == SP_OK ? "" : sp_last_error()));
  free(image);
  free(log);
  UNPROTECT(2);
  return out;
}

SEXP sp_r_gpu_module_loaded(SEXP dev, SEXP key) {
  return Rf_ScalarLogical(sp_gpu_module_loaded(sp_r_int(dev), CHAR(STRING_ELT(key, 0))));
}

/* Load a cubin (raw) or PTX (raw, NUL-terminated here) image. */
SEXP sp_r_gpu_module_load(SEXP dev, SEXP key, SEXP image) {
  R_xlen_t n = XLENGTH(image);
  char *buf = R_alloc((size_t)n + 1, 1);
  memcpy(buf, RAW(image), (size_t)n);
  buf[n] = '\0';
  sp_r_check(sp_gpu_module_load(sp_r_int(dev), CHAR(STRING_ELT(key, 0)), buf));
  return R_NilValue;
}

SEXP sp_r_gpu_modules_unload(void) {
  return Rf_ScalarInteger(sp_gpu_modules_unload_all());
}

SEXP sp_r_hash(SEXP x) {
  sp_hash128 h;
  char hex[33];
  R_xlen_t i;
  sp_hash_init(&h);
  for (i = 0; i < XLENGTH(x); i++) {
    const char *s = CHAR(STRING_ELT(x, i));
    sp_hash_update(&h, s, strlen(s) + 1); /* the NUL separates elements */
  }
  sp_hash_hex(&h, hex);
  return Rf_mkString(hex);
}

static int *device_ids(SEXP devices, int *n) {
  int i, *d;
  *n = Rf_length(devices);
  d = (int *)R_alloc((size_t)(*n > 0 ? *n : 1), sizeof(int));
  for (i = 0; i < *n; i++) d[i] = INTEGER(devices)[i];
  return d;
}

SEXP sp_r_gpu_philox(SEXP key, SEXP kind, SEXP single, SEXP n, SEXP seed,
                     SEXP stream, SEXP offset, SEXP devices, SEXP progress) {
  uint64_t nn = sp_r_count(n);
  int ndev, *devs = device_ids(devices, &ndev), st;
  sp_hooks hooks;
  sp_r_hooks_ctx ctx;
  SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)nn));
  sp_r_hooks_start(&ctx, &hooks, sp_r_int(progress), (double)((nn + 3) / 4),
                   "Philox draws on the GPU");
  st = sp_gpu_philox_fill(CHAR(STRING_ELT(key, 0)), sp_r_int(kind), sp_r_int(single),
                          sp_r_u64(seed), sp_r_u64(stream), sp_r_u64(offset), nn,
                          REAL(out), devs, ndev, &hooks);
  sp_r_hooks_done(&ctx);
  sp_r_check(st);
  UNPROTECT(2);
  return out;
}

SEXP sp_r_gpu_philox_moments(SEXP key, SEXP single, SEXP n, SEXP seed, SEXP stream,
                             SEXP offset, SEXP devices) {
  int ndev, *devs = device_ids(devices, &ndev);
  double acc[2], ms = 0;
  SEXP out;
  sp_r_check(sp_gpu_philox_normal_moments(CHAR(STRING_ELT(key, 0)), sp_r_int(single),
                                          sp_r_u64(seed), sp_r_u64(stream),
                                          sp_r_u64(offset), sp_r_count(n), devs, ndev,
                                          acc, &ms));
  out = PROTECT(Rf_allocVector(REALSXP, 3));
  REAL(out)[0] = acc[0];
  REAL(out)[1] = acc[1];
  REAL(out)[2] = ms;
  UNPROTECT(1);
  return out;
}

SEXP sp_r_gpu_curand_check(SEXP key, SEXP dev, SEXP seed, SEXP stream0, SEXP offset,
                           SEXP nstreams, SEXP nquads) {
  int ns = sp_r_int(nstreams), nq = sp_r_int(nquads);
  size_t total = (size_t)ns * (size_t)nq * 4, i;
  uint32_t *buf = (uint32_t *)R_alloc(total > 0 ? total : 1, sizeof(uint32_t));
  SEXP out;
  sp_r_check(sp_gpu_curand_check(CHAR(STRING_ELT(key, 0)), sp_r_int(dev), sp_r_u64(seed),
                                 sp_r_u64(stream0), sp_r_u64(offset), ns, nq, buf));
  out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)total));
  for (i = 0; i < total; i++) REAL(out)[i] = (double)buf[i];
  UNPROTECT(1);
  return out;
}

/* Allocate `bytes` on `dev` through the checked allocator and free them
 * (tests of the out-of-memory path). */
SEXP sp_r_gpu_alloc_test(SEXP dev, SEXP bytes) {
  CUdeviceptr p = 0;
  int d = sp_r_int(dev);
  int st = sp_gpu_alloc(d, (size_t)sp_r_dbl(bytes), "the test buffer", &p);
  sp_gpu_free(d, &p);
  sp_r_check(st);
  return Rf_ScalarLogical(1);
}

/* Hold `bytes` of device memory until the returned external pointer is
 * released or collected (tests: leave too little memory for a simulation). */
typedef struct { int dev; CUdeviceptr p; } sp_r_reserved;

static void reserve_finalize(SEXP xp) {
  sp_r_reserved *r = (sp_r_reserved *)R_ExternalPtrAddr(xp);
  if (r == NULL) return;
  sp_gpu_free(r->dev, &r->p);
  free(r);
  R_ClearExternalPtr(xp);
}

SEXP sp_r_gpu_reserve_test(SEXP dev, SEXP bytes) {
  sp_r_reserved *r;
  SEXP xp;
  int d = sp_r_int(dev), st;
  CUdeviceptr p = 0;
  st = sp_gpu_alloc(d, (size_t)sp_r_dbl(bytes), "the reserved test buffer", &p);
  sp_r_check(st);
  r = (sp_r_reserved *)malloc(sizeof *r);
  if (r == NULL) {
    sp_gpu_free(d, &p);
    Rf_error("out of host memory");
  }
  r->dev = d;
  r->p = p;
  xp = PROTECT(R_MakeExternalPtr(r, R_NilValue, R_NilValue));
  R_RegisterCFinalizerEx(xp, reserve_finalize, TRUE);
  UNPROTECT(1);
  return xp;
}

SEXP sp_r_gpu_release_test(SEXP xp) {
  reserve_finalize(xp);
  return R_NilValue;
}

SEXP sp_r_gpu_live_allocations(void) {
  return Rf_ScalarReal((double)sp_gpu_live_allocations());
}

SEXP sp_r_gpu_mem_info(SEXP dev) {
  double fr = 0, tot = 0;
  SEXP out;
  sp_r_check(sp_gpu_mem_info(sp_r_int(dev), &fr, &tot));
  out = PROTECT(Rf_allocVector(REALSXP, 2));
  REAL(out)[0] = fr;
  REAL(out)[1] = tot;
  UNPROTECT(1);
  return out;
}
