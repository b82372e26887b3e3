/* sp_gpu_nvrtc.c: run-time compilation with NVRTC.  No R API; see
 * sp_gpu.h. */
#include "sp_gpu_impl.h"

#include <stdlib.h>
#include <string.h>

#include "../core/sp_error.h"

/* ---- NVRTC ------------------------------------------------------------------------ */

int sp_nvrtc_archs(int *archs, int max, int *n) {
  int k = 0;
  *n = 0;
  if (sp_nvrtc_load() != SP_OK)
    return sp_fail(SP_ERR_UNAVAILABLE, "%s", sp_nvrtc_reason());
  if (sp_nv.nvrtcGetNumSupportedArchs(&k) != NVRTC_SUCCESS || k < 1)
    return sp_fail(SP_ERR_NVRTC, "nvrtcGetNumSupportedArchs failed");
  if (k > max) {
    int *all = (int *)malloc((size_t)k * sizeof(int));
    if (all == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
    sp_nv.nvrtcGetSupportedArchs(all);
    memcpy(archs, all + (k - max), (size_t)max * sizeof(int));
    free(all);
    k = max;
  } else {
    sp_nv.nvrtcGetSupportedArchs(archs);
  }
  *n = k;
  return SP_OK;
}

int sp_nvrtc_compile(const char *src, const char *name, const char *const *opts,
                     int nopts, const char *const *headers, const char *const *header_names,
                     int nheaders, int cubin, char **image, size_t *size, char **log) {
  nvrtcProgram prog = NULL;
  nvrtcResult r, rc;
  size_t loglen = 0;
  *image = NULL;
  *size = 0;
  *log = NULL;
  if (sp_nvrtc_load() != SP_OK)
    return sp_fail(SP_ERR_UNAVAILABLE, "%s", sp_nvrtc_reason());
  r = sp_nv.nvrtcCreateProgram(&prog, src, name, nheaders, nheaders > 0 ? headers : NULL,
                               nheaders > 0 ? header_names : NULL);
  if (r != NVRTC_SUCCESS)
    return sp_fail(SP_ERR_NVRTC, "nvrtcCreateProgram(%s) failed: %s", name,
                   sp_nv.nvrtcGetErrorString(r));
  rc = sp_nv.nvrtcCompileProgram(prog, nopts, opts);
  if (sp_nv.nvrtcGetProgramLogSize(prog, &loglen) == NVRTC_SUCCESS && loglen > 1) {
    *log = (char *)malloc(loglen + 1);
    if (*log != NULL && sp_nv.nvrtcGetProgramLog(prog, *log) != NVRTC_SUCCESS) (*log)[0] = '\0';
    if (*log != NULL) (*log)[loglen] = '\0';
  }
  if (rc != NVRTC_SUCCESS) {
    sp_nv.nvrtcDestroyProgram(&prog);
    return sp_fail(SP_ERR_NVRTC, "NVRTC could not compile %s: %s", name,
                   sp_nv.nvrtcGetErrorString(rc));
  }
  if (cubin) {
    r = sp_nv.nvrtcGetCUBINSize(prog, size);
    if (r == NVRTC_SUCCESS) {
      *image = (char *)malloc(*size > 0 ? *size : 1);
      if (*image == NULL) r = -1;
      else r = sp_nv.nvrtcGetCUBIN(prog, *image);
    }
  } else {
    r = sp_nv.nvrtcGetPTXSize(prog, size);
    if (r == NVRTC_SUCCESS) {
      *image = (char *)malloc(*size + 1);
      if (*image == NULL) r = -1;
      else {
        r = sp_nv.nvrtcGetPTX(prog, *image);
        (*image)[*size] = '\0';
      }
    }
  }
  sp_nv.nvrtcDestroyProgram(&prog);
  if (r != NVRTC_SUCCESS) {
    free(*image);
    *image = NULL;
    *size = 0;
    return r == -1 ? sp_fail(SP_ERR_NOMEM, "out of host memory")
                   : sp_fail(SP_ERR_NVRTC, "NVRTC could not return the image of %s: %s",
                             name, sp_nv.nvrtcGetErrorString(r));
  }
  return SP_OK;
}

