/* sp_hash.h: a 128-bit FNV-1a hash (two 64-bit lanes) for cache keys. */
#ifndef SP_HASH_H
#define SP_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint64_t a, b;
} sp_hash128;

void sp_hash_init(sp_hash128 *h);
void sp_hash_update(sp_hash128 *h, const void *data, size_t len);
/* 32 lowercase hex digits and a NUL into out[33]. */
void sp_hash_hex(const sp_hash128 *h, char out[33]);

#endif
