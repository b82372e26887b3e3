#include "sp_hash.h"

#include <stdio.h>

#define FNV_PRIME 0x00000100000001B3ull

void sp_hash_init(sp_hash128 *h) {
  h->a = 0xcbf29ce484222325ull; /* FNV-1a offset basis */
  h->b = 0x84222325cbf29ce4ull; /* a second, different basis */
}

void sp_hash_update(sp_hash128 *h, const void *data, size_t len) {
  const unsigned char *p = (const unsigned char *)data;
  size_t i;
  for (i = 0; i < len; i++) {
    h->a = (h->a ^ p[i]) * FNV_PRIME;
    h->b = (h->b ^ (unsigned char)(p[i] + 0x5bu)) * FNV_PRIME;
  }
}

void sp_hash_hex(const sp_hash128 *h, char out[33]) {
  snprintf(out, 33, "%016llx%016llx", (unsigned long long)h->a,
           (unsigned long long)h->b);
}
