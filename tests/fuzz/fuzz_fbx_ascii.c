/* fuzz_fbx_ascii.c - libFuzzer target for the ASCII FBX reader (io/fbx_ascii_read.c), in process. The input is the
 * text. Every call must return a code, never read outside the input, recurse past its depth bound or allocate past
 * what the text holds (an array's "*N" is checked against its values, not allocated up front). What it converts must
 * parse as binary FBX (fbx_tree.c); written as text again (fbx_ascii_write.c) it must convert again, and that text
 * must come back the same once more: writer and reader agree on every type they give a value (the text is their
 * fixed point after one round: an integral double of an unknown record is an integer the second time, the same
 * text). Seeds: tests/fuzz/seeds-fuzz_fbx_ascii/ (tests/fuzz/make_seeds.py: the ASCII FBX skinkit writes of the
 * generated rig and of tests/data/maya_style.fbx, Assimp 5.2.5's own ASCII FBX of the rig, a hand-written file in the
 * FBX SDK's layout). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "skio_fbx_tree.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/* The binary file as text, converted back: the binary of that, or NULL when out of memory. */
static char* round_trip(const uint8_t* bin, size_t bin_n, size_t* text_n) {
  char* text = NULL;
  skc_err err = {0};
  if (skio_fbx_to_ascii(bin, bin_n, &text, text_n, &err) != SKC_OK) {
    if (err.code != SKC_OUT_OF_MEMORY) __builtin_trap(); /* the reader's output is binary FBX the writer takes */
    return NULL;
  }
  return text;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  /* a private copy of exactly the bytes, so ASan sees any read past them */
  char* in = malloc(size ? size : 1);
  if (!in) return 0;
  memcpy(in, data, size);
  uint8_t* bin = NULL;
  size_t bin_n = 0;
  skc_err err = {0};
  if (skio_fbx_from_ascii(in, size, &bin, &bin_n, &err) != SKC_OK) {
    if (bin || !err.message[0]) __builtin_trap(); /* a refusal says why and leaves nothing */
    free(in);
    return 0;
  }
  free(in);
  skio_fbx_tree t;
  if (skio_fbx_tree_parse(bin, bin_n, &t, NULL) != SKC_OK) __builtin_trap();
  skio_fbx_tree_free(&t);
  size_t text_n = 0, again_n = 0, bin2_n = 0;
  char* text = round_trip(bin, bin_n, &text_n);
  uint8_t* bin2 = NULL;
  if (text && skio_fbx_from_ascii(text, text_n, &bin2, &bin2_n, &err) != SKC_OK && err.code != SKC_OUT_OF_MEMORY)
    __builtin_trap();
  char* again = bin2 ? round_trip(bin2, bin2_n, &again_n) : NULL;
  if (again && (again_n != text_n || memcmp(again, text, text_n) != 0)) __builtin_trap();
  free(again);
  free(bin2);
  free(text);
  free(bin);
  return 0;
}
