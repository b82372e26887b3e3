/* .Call glue for the GPU backend: status, devices, NVRTC, modules, cache keys. */
#include <stdlib.h>
#include <string.h>

#include "r_util.h"

#include "core/sp_error.h"
#include "gpu/sp_gpu.h"

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
/* headers: a named character vector of in-memory headers (name = the file
 * name the source includes), or NULL. */
SEXP sp_r_nvrtc_compile(SEXP src, SEXP name, SEXP opts, SEXP cubin, SEXP headers) {
  const char *names[] = {"ok", "image", "log", "error", ""};
  int nopts = Rf_length(opts), nh = Rf_isNull(headers) ? 0 : Rf_length(headers), i, st;
  const char **o = (const char **)R_alloc((size_t)(nopts > 0 ? nopts : 1), sizeof(char *));
  const char **hv = (const char **)R_alloc((size_t)(nh > 0 ? nh : 1), sizeof(char *));
  const char **hn = (const char **)R_alloc((size_t)(nh > 0 ? nh : 1), sizeof(char *));
  SEXP hnames = nh > 0 ? Rf_getAttrib(headers, R_NamesSymbol) : R_NilValue;
  if (nh > 0 && (TYPEOF(headers) != STRSXP || Rf_length(hnames) != nh))
    Rf_error("internal error: NVRTC headers must be a named character vector");
  for (i = 0; i < nh; i++) {
    hv[i] = CHAR(STRING_ELT(headers, i));
    hn[i] = CHAR(STRING_ELT(hnames, i));
  }
  char *image = NULL, *log = NULL;
  size_t size = 0;
  SEXP out, img = R_NilValue;
  for (i = 0; i < nopts; i++) o[i] = CHAR(STRING_ELT(opts, i));
  st = sp_nvrtc_compile(CHAR(STRING_ELT(src, 0)), CHAR(STRING_ELT(name, 0)), o, nopts, hv, hn,
                        nh, sp_r_int(cubin), &image, &size, &log);
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
