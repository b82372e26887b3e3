/* The registry of models: every descriptor the generic entry can run
 * (src/r_model.c).  A new model adds its descriptor here. */
#include <string.h>

#include "../core/sp_model.h"

extern const sp_model sp_model_escape, sp_model_driven, sp_model_vmc, sp_model_xorsat,
    sp_model_sde, sp_model_ams, sp_model_sde_ams, sp_model_philox, sp_model_mb, sp_model_dmc;

static const sp_model *const models[] = {&sp_model_escape, &sp_model_driven, &sp_model_vmc,
                                         &sp_model_xorsat, &sp_model_sde, &sp_model_ams,
                                         &sp_model_sde_ams, &sp_model_philox, &sp_model_mb,
                                         &sp_model_dmc};

const sp_model *sp_model_find(const char *name) {
  size_t i;
  for (i = 0; i < sizeof models / sizeof models[0]; i++)
    if (strcmp(models[i]->name, name) == 0) return models[i];
  return NULL;
}
