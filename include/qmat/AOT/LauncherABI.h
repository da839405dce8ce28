/* qmat's launcher ABI: what every generated launcher exports, whatever the
 * bundle. Each layer <layer> of a bundle <prefix> has three entry points of
 * the types below, named <prefix>_<layer>_workspace_size,
 * <prefix>_<layer>_prepare_weights and <prefix>_<layer>_run; the bundle's
 * header declares them with the layer's shapes. Bindings that load a
 * launcher by symbol (ctypes, a torch extension) call them through these
 * types, as they call the bundle's <prefix>_set_log_handler. Plain C: it
 * compiles as C99 and as C++.
 */
#ifndef QMAT_AOT_LAUNCHERABI_H
#define QMAT_AOT_LAUNCHERABI_H

#include <stddef.h>
#include <stdint.h>

#ifndef QMAT_STATUS_DEFINED
#define QMAT_STATUS_DEFINED
/* What every entry point returns; <prefix>_last_error() has the message. */
typedef enum qmat_status {
  QMAT_OK = 0,
  QMAT_ERROR_INVALID_ARGUMENT = 1,
  QMAT_ERROR_UNSUPPORTED_DEVICE = 2,
  QMAT_ERROR_WORKSPACE_TOO_SMALL = 3,
  QMAT_ERROR_CUDA = 4,
  QMAT_ERROR_CUBLAS = 5,
  QMAT_ERROR_HIP = 6,
  QMAT_ERROR_HIPBLASLT = 7
} qmat_status;
#endif

/* The workspace of _run: at least _workspace_size(max_m) bytes for every
 * m <= max_m, aligned to this many bytes (null where that size is 0). */
#define QMAT_WORKSPACE_ALIGNMENT 256

/* Bytes of workspace _run needs for every m up to max_m. */
typedef size_t (*qmat_workspace_size_fn)(int64_t max_m);

/* Writes the codes (host memory) in the layout _run's `weights` takes. */
typedef qmat_status (*qmat_prepare_weights_fn)(const void *weights,
                                               void *prepared);

/* Y[m, N] = A[m, K] * W^T, queued on `stream` (a CUstream or hipStream_t;
 * the bundle's header declares it with that type). */
typedef qmat_status (*qmat_run_fn)(void *stream, int64_t m, const void *a,
                                   const void *weights, const void *scales,
                                   const float *global_scale,
                                   const void *zero_points, const void *bias,
                                   void *y, void *workspace,
                                   size_t workspace_size);

/* The levels of the launcher's log (QMAT_LOG=off|info|debug, or
 * <prefix>_set_log_handler): at info which binary each device loads and the
 * first call of each layer on each path and variant, at debug every call. */
#define QMAT_LOG_OFF 0
#define QMAT_LOG_INFO 1
#define QMAT_LOG_DEBUG 2

/* Receives one log line (no trailing newline) with the level it was logged
 * at and the `user` pointer it was registered with, on the thread that logs
 * it; it must not call back into the launcher. */
typedef void (*qmat_log_fn)(int level, const char *line, void *user);

/* <prefix>_set_log_handler(handler, level, user): the launcher's log lines
 * up to `level` go to `handler` instead of stderr; a null handler restores
 * QMAT_LOG and stderr (level and user are then ignored). */
typedef qmat_status (*qmat_set_log_handler_fn)(qmat_log_fn handler, int level,
                                               void *user);

#endif /* QMAT_AOT_LAUNCHERABI_H */
