/* sp_gpu_session.c: the end of the GPU session (package unload), the layer
 * above the loader, devices and modules: what they hold is released in
 * order.  No R API; see sp_gpu.h. */
#include "sp_gpu_impl.h"

void sp_gpu_shutdown(void) {
  if (sp_gpu_state != 1) return;
  sp_gpu_modules_unload_all();
  sp_gpu_release_contexts();
}
