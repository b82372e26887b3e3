/* sp_hash.h: SHA-256 (FIPS 180-4) for cache keys and the check of compiled
 * files before they are loaded: a cryptographic hash, so that no one can
 * make a different source or object with the key of another. */
#ifndef SP_HASH_H
#define SP_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint32_t h[8];
  uint64_t len;          /* bytes hashed so far */
  unsigned char buf[64]; /* the block being filled */
  size_t fill;
} sp_sha256;

void sp_sha256_init(sp_sha256 *s);
void sp_sha256_update(sp_sha256 *s, const void *data, size_t len);
/* The digest as 64 lowercase hex digits and a NUL into out[65]. */
void sp_sha256_hex(sp_sha256 *s, char out[65]);

#endif
