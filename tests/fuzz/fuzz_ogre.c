/* fuzz_ogre.c - libFuzzer target for the Ogre 1.10+ mesh downgrade (io/ogre_mesh.c, skio_ogre.h): the input is a
 * binary .mesh. A [MeshSerializer_v1.100] mesh gives a copy in the 1.8 layout or SKC_FORMAT, never a read outside
 * the input; the copy is no longer than the input, starts with the 1.8 header and a mesh chunk that lies inside it,
 * and is not downgraded again. Any other input gives no copy. Seeds:
 * tests/fuzz/seeds-fuzz_ogre/ (tests/data/ogre_rig_v110.mesh, Ogre 1.12's tools). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "skio_ogre.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uint8_t* in = malloc(size ? size : 1); /* exactly the bytes, so ASan sees any read past them */
  if (!in) return 0;
  memcpy(in, data, size);
  uint8_t *out = NULL, *again = NULL;
  size_t n = 0, n2 = 0;
  uint32_t lods = 0;
  skc_err e = {0};
  const int rc = skio_ogre_mesh_downgrade(in, size, &out, &n, &lods, &e);
  if (rc != SKC_OK && rc != SKC_FORMAT && rc != SKC_OUT_OF_MEMORY) __builtin_trap();
  if (rc == SKC_OK && out) {
    if (!skio_ogre_is_v110(in, size) || n > size) __builtin_trap();
    /* the 1.8 header is 24 bytes: 0x1000, "[MeshSerializer_v1.8]\n"; then the mesh chunk's id and length */
    const uint32_t mesh =
        (uint32_t)out[26] | (uint32_t)out[27] << 8 | (uint32_t)out[28] << 16 | (uint32_t)out[29] << 24;
    if (n < 31 || out[24] != 0x00 || out[25] != 0x30 || mesh < 7 || mesh > n - 24) __builtin_trap();
    if (skio_ogre_mesh_downgrade(out, n, &again, &n2, NULL, &e) != SKC_OK || again) __builtin_trap();
  }
  if (rc == SKC_OK && !out && skio_ogre_is_v110(in, size)) __builtin_trap();
  free(again);
  free(out);
  free(in);
  return 0;
}
