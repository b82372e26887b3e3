#include "sp_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static char sp_errbuf[2048];
static int sp_errcode = SP_OK;
static int sp_in_run = 0;

int sp_fail(int code, const char *fmt, ...) {
  va_list ap;
  if (sp_in_run && sp_errcode != SP_OK && code != SP_OK) return code; /* the first wins */
  va_start(ap, fmt);
  vsnprintf(sp_errbuf, sizeof sp_errbuf, fmt, ap);
  va_end(ap);
  sp_errcode = code;
  return code;
}

void sp_clear_error(void) {
  sp_errbuf[0] = '\0';
  sp_errcode = SP_OK;
}

void sp_error_run_begin(void) {
  sp_clear_error();
  sp_in_run = 1;
}

void sp_error_run_end(void) { sp_in_run = 0; }

const char *sp_status_name(int code) {
  switch (code) {
  case SP_OK: return "success";
  case SP_ERR_NOMEM: return "out of host memory";
  case SP_ERR_INVALID: return "invalid argument";
  case SP_ERR_INTERRUPTED: return "interrupted";
  case SP_ERR_UNAVAILABLE: return "backend unavailable";
  case SP_ERR_CUDA: return "CUDA driver error";
  case SP_ERR_DEVICE_MEMORY: return "out of device memory";
  case SP_ERR_NVRTC: return "NVRTC compilation failed";
  case SP_ERR_IO: return "file error";
  case SP_ERR_NOT_FINITE: return "a state became non-finite";
  case SP_ERR_START: return "the start cannot be drawn";
  case SP_ERR_RESOLUTION: return "a state's increments fell below its resolution";
  default: return "unknown error";
  }
}

const char *sp_last_error(void) {
  if (sp_errbuf[0] == '\0') return sp_status_name(sp_errcode);
  return sp_errbuf;
}

void sp_error_save(sp_error_saved *s) {
  s->code = sp_errcode;
  memcpy(s->msg, sp_errbuf, sizeof s->msg);
  s->msg[sizeof s->msg - 1] = '\0';
}

int sp_error_restore(const sp_error_saved *s) {
  memcpy(sp_errbuf, s->msg, sizeof sp_errbuf);
  sp_errcode = s->code;
  return s->code;
}
