/* fuzz_md5.c - libFuzzer target for the .md5mesh structure check (io/md5_check.c, skio_md5.h): the input is the
 * text. The check gives SKC_OK or SKC_FORMAT with a message, never a read outside the input, and the same answer for
 * the same bytes. Seeds: tests/fuzz/seeds-fuzz_md5/ (a two-joint quad written by hand) and the corpus' .md5mesh
 * files (scripts/fuzz.sh). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "skio_md5.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char* in = malloc(size ? size : 1); /* exactly the bytes, so ASan sees any read past them */
  if (!in) return 0;
  memcpy(in, data, size);
  skc_err e = {0}, again = {0};
  const int rc = skio_md5mesh_check(in, size, &e);
  if (rc != SKC_OK && rc != SKC_FORMAT) __builtin_trap();
  if (rc == SKC_FORMAT && !e.message[0]) __builtin_trap();
  if (skio_md5mesh_check(in, size, &again) != rc || strcmp(e.message, again.message) != 0) __builtin_trap();
  free(in);
  return 0;
}
