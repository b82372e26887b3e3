/* sp_error.h: status codes of the C core.  The core never touches R: it
 * returns one of these codes and leaves a message that the .Call glue turns
 * into an R error.  Messages are recorded by the calling (host) thread only;
 * code running inside an OpenMP team returns codes and lets the host thread
 * write the message. */
#ifndef SP_ERROR_H
#define SP_ERROR_H

typedef enum {
  SP_OK = 0,
  SP_ERR_NOMEM,       /* host allocation failed */
  SP_ERR_INVALID,     /* an argument the R layer should have caught */
  SP_ERR_INTERRUPTED, /* the user interrupted; partial results are valid */
  SP_ERR_UNAVAILABLE, /* a backend or library is not available */
  SP_ERR_CUDA,        /* a CUDA driver call failed */
  SP_ERR_DEVICE_MEMORY, /* a device allocation would not fit */
  SP_ERR_NVRTC,       /* run-time compilation failed */
  SP_ERR_IO,          /* a file could not be read or written */
  SP_ERR_NOT_FINITE,  /* a replica's state became NaN or infinite (the
                         message names the replica, the quantity and the
                         step); never partial results */
  SP_ERR_START,       /* a start state that cannot be drawn as asked (the
                         user's parameters: an R error of its own class) */
  SP_ERR_RESOLUTION   /* a replica's state stopped resolving its increments
                         (the working precision is too coarse for it; the
                         message names the replica, the quantity and the
                         step); never partial results */
} sp_status;

/* Inside a run (between sp_error_run_begin() and sp_error_run_end(), which
 * the generic entry puts around every engine) the first failure wins: a
 * later sp_fail() -- clean-up after a fault, a second device -- keeps the
 * status and message of the first.  Outside a run the last one is kept. */
void sp_error_run_begin(void); /* also clears the error */
void sp_error_run_end(void);

/* Record a formatted message for `code` and return `code`. */
int sp_fail(int code, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;

/* The message of the last failure (or a generic text for its code). */
const char *sp_last_error(void);
/* A short fixed name for a status code. */
const char *sp_status_name(int code);
void sp_clear_error(void);

/* Keep the message of a failure across clean-up code that may fail again
 * (releasing device memory after a failed launch): save it before the
 * clean-up, restore it after, so that the first failure is what the user
 * reads. */
typedef struct {
  int code;
  char msg[2048];
} sp_error_saved;
void sp_error_save(sp_error_saved *s);
int sp_error_restore(const sp_error_saved *s); /* returns s->code */

#endif
