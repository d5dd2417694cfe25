#define _DEFAULT_SOURCE /* mkdtemp */
/* test_images.c - TGA, BMP and DDS textures decoded (io/image_decode.c, io/image_dds.c) and written to glTF as PNG.
 *
 * References: tests/data/images/ (tests/data/make_images.py): files Pillow wrote, and files built byte by byte,
 * each with the pixels Pillow reads from it (or, where Pillow 9.4 cannot - 15-bit TGA - or reads wrongly - its RLE
 * BMP delta and odd RLE4 literals -, the pixels the file was built from) and a per-channel tolerance (1 where 5- or
 * 6-bit channels are expanded: skinkit rounds, Pillow truncates). The PNG written is read back by a PNG reader of
 * this test's own (zlib inflate, the five filters). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include "sk_scenetest.h"
#include "sk_testutil.h"
#include "skio_image.h"
#include "skio_scene.h"

static void spill(const char* path, const void* d, size_t n) {
  FILE* f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(d, 1, n, f), n);
  fclose(f);
}

typedef struct fixture {
  char name[64];
  unsigned w, h, tol;
} fixture;

static int manifest(fixture* f, int cap) {
  FILE* m = fopen(skt_data("images/manifest.txt"), "r");
  ck_assert_ptr_nonnull(m);
  int n = 0;
  while (n < cap && fscanf(m, "%63s %u %u %u", f[n].name, &f[n].w, &f[n].h, &f[n].tol) == 4) ++n;
  fclose(m);
  ck_assert_int_ge(n, 30);
  return n;
}

static unsigned char* fixture_bytes(const char* name, const char* suffix, size_t* n) {
  char rel[256];
  snprintf(rel, sizeof rel, "images/%.100s%.16s", name, suffix);
  unsigned char* d = (unsigned char*)skt_slurp(skt_data(rel), n);
  ck_assert_msg(d != NULL, "%s missing", rel);
  return d;
}

/* the largest per-channel difference between two RGBA images of n pixels */
static unsigned max_diff(const unsigned char* a, const unsigned char* b, size_t n) {
  unsigned m = 0;
  for (size_t i = 0; i < 4 * n; ++i) {
    unsigned d = a[i] > b[i] ? a[i] - b[i] : b[i] - a[i];
    if (d > m) m = d;
  }
  return m;
}

static unsigned be32(const unsigned char* p) {
  return (unsigned)p[0] << 24 | (unsigned)p[1] << 16 | (unsigned)p[2] << 8 | p[3];
}

static unsigned paeth(int a, int b, int c) {
  int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
  return (unsigned)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

/* A PNG of 8-bit RGB or RGBA (what skio_png_encode writes) as RGBA; NULL if it is not one. */
static unsigned char* png_read(const unsigned char* d, size_t n, unsigned* w, unsigned* h) {
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  if (n < 8 || memcmp(d, sig, 8)) return NULL;
  unsigned ch = 0;
  unsigned char* z = NULL;
  size_t zn = 0;
  for (size_t at = 8; at + 12 <= n;) {
    const unsigned len = be32(d + at);
    const unsigned char* type = d + at + 4;
    ck_assert_uint_le(at + 12 + len, n);
    ck_assert_uint_eq(be32(d + at + 8 + len), (unsigned)crc32(0, type, 4 + len));
    if (!memcmp(type, "IHDR", 4)) {
      *w = be32(d + at + 8), *h = be32(d + at + 12);
      ck_assert_uint_eq(d[at + 16], 8);
      ch = d[at + 17] == 6 ? 4 : d[at + 17] == 2 ? 3 : 0;
    } else if (!memcmp(type, "IDAT", 4)) {
      z = realloc(z, zn + len);
      memcpy(z + zn, d + at + 8, len);
      zn += len;
    }
    at += 12 + len;
  }
  if (!ch || !z) return NULL;
  const size_t stride = (size_t)*w * ch;
  uLongf rn = (uLongf)(*h * (1 + stride));
  unsigned char *raw = malloc(rn), *px = calloc((size_t)*w * *h, 4), *cur = malloc(stride), *prev = calloc(stride, 1);
  ck_assert_int_eq(uncompress(raw, &rn, z, (uLong)zn), Z_OK);
  ck_assert_uint_eq(rn, *h * (1 + stride));
  for (unsigned y = 0; y < *h; ++y) {
    const unsigned char* row = raw + y * (1 + stride);
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= ch ? cur[i - ch] : 0, b = prev[i], c = i >= ch ? prev[i - ch] : 0;
      const unsigned p = row[0] == 0   ? 0
                         : row[0] == 1 ? (unsigned)a
                         : row[0] == 2 ? (unsigned)b
                         : row[0] == 3 ? (unsigned)(a + b) / 2
                                       : paeth(a, b, c);
      ck_assert_uint_le(row[0], 4);
      cur[i] = (unsigned char)(row[1 + i] + p);
    }
    for (unsigned x = 0; x < *w; ++x) {
      memcpy(px + 4 * ((size_t)y * *w + x), cur + (size_t)x * ch, ch);
      if (ch == 3) px[4 * ((size_t)y * *w + x) + 3] = 255;
    }
    memcpy(prev, cur, stride);
  }
  free(raw), free(cur), free(prev), free(z);
  return px;
}

START_TEST(fixtures_decode_as_pillow_reads_them) {
  fixture f[128];
  const int n = manifest(f, 128);
  for (int i = 0; i < n; ++i) {
    size_t fn = 0, rn = 0;
    unsigned char* d = fixture_bytes(f[i].name, "", &fn);
    unsigned char* ref = fixture_bytes(f[i].name, ".rgba", &rn);
    ck_assert_uint_eq(rn, (size_t)f[i].w * f[i].h * 4);
    skio_pixels p;
    skc_err err = {0};
    ck_assert_msg(skio_image_decode(d, fn, f[i].name, &p, &err) == SKC_OK, "%s: %s", f[i].name, err.message);
    ck_assert_uint_eq(p.w, f[i].w);
    ck_assert_uint_eq(p.h, f[i].h);
    const unsigned diff = max_diff(p.rgba, ref, (size_t)p.w * p.h);
    ck_assert_msg(diff <= f[i].tol, "%s: pixels differ by %u (tolerance %u)", f[i].name, diff, f[i].tol);
    bool alpha = false;
    for (size_t k = 0; k < (size_t)p.w * p.h; ++k) alpha |= ref[4 * k + 3] != 255;
    ck_assert_msg(p.alpha == alpha, "%s: alpha %d", f[i].name, p.alpha);
    free(p.rgba), free(d), free(ref);
  }
}
END_TEST

START_TEST(png_written_holds_the_same_pixels) {
  fixture f[128];
  const int n = manifest(f, 128);
  for (int i = 0; i < n; ++i) {
    size_t fn = 0, pn = 0, rn = 0;
    unsigned char* d = fixture_bytes(f[i].name, "", &fn);
    unsigned char* ref = fixture_bytes(f[i].name, ".rgba", &rn);
    unsigned char* png = NULL;
    ck_assert_int_eq(skio_image_to_png(d, fn, f[i].name, &png, &pn, NULL), SKC_OK);
    unsigned w = 0, h = 0;
    unsigned char* px = png_read(png, pn, &w, &h);
    ck_assert_msg(px != NULL, "%s: not an 8-bit RGB(A) PNG", f[i].name);
    ck_assert_uint_eq(w, f[i].w);
    ck_assert_uint_eq(h, f[i].h);
    const unsigned diff = max_diff(px, ref, (size_t)w * h);
    ck_assert_msg(diff <= f[i].tol, "%s: PNG pixels differ by %u", f[i].name, diff);
    free(px), free(png), free(d), free(ref);
  }
  /* a larger image takes every filter; RGB when opaque */
  const unsigned W = 301, H = 97;
  unsigned char* img = malloc((size_t)W * H * 4);
  for (unsigned y = 0; y < H; ++y)
    for (unsigned x = 0; x < W; ++x) {
      unsigned char* p = img + 4 * ((size_t)y * W + x);
      p[0] = (unsigned char)(x * 3 + y), p[1] = (unsigned char)(x * y), p[2] = (unsigned char)(y * 7 ^ x), p[3] = 255;
    }
  size_t pn = 0;
  unsigned char* png = skio_png_encode(img, W, H, 4, &pn);
  unsigned w = 0, h = 0;
  unsigned char* back = png_read(png, pn, &w, &h);
  ck_assert_ptr_nonnull(back);
  ck_assert_uint_eq(max_diff(back, img, (size_t)W * H), 0);
  free(back), free(png), free(img);
}
END_TEST

/* Every prefix of every fixture, and damaged headers: an error or an image, never a read past the bytes (the
 * sanitizer builds check it). */
START_TEST(damaged_images_are_errors) {
  fixture f[128];
  const int n = manifest(f, 128);
  for (int i = 0; i < n; ++i) {
    size_t fn = 0;
    unsigned char* d = fixture_bytes(f[i].name, "", &fn);
    for (size_t k = 0; k < fn; ++k) {
      unsigned char* cut = malloc(k ? k : 1);
      memcpy(cut, d, k);
      skio_pixels p;
      skc_err err = {0};
      const int rc = skio_image_decode(cut, k, f[i].name, &p, &err);
      ck_assert_msg(rc == SKC_OK || rc == SKC_FORMAT || rc == SKC_UNSUPPORTED, "%s cut at %zu: %d", f[i].name, k, rc);
      if (rc == SKC_OK)
        free(p.rgba);
      else
        ck_assert_ptr_null(p.rgba);
      free(cut);
    }
    free(d);
  }
  skio_pixels p;
  skc_err err = {0};
  /* 65535 x 65535 run-length TGA in 20 bytes: refused before anything is allocated */
  unsigned char big[20] = {0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 24, 0, 0x81, 0};
  ck_assert_int_eq(skio_image_decode(big, sizeof big, "big.tga", &p, &err), SKC_OUT_OF_RANGE);
  ck_assert_ptr_nonnull(strstr(err.message, "65535 x 65535"));
  /* a colour index past the palette */
  size_t fn = 0;
  unsigned char* d = fixture_bytes("bmp4.bmp", "", &fn);
  const unsigned off = d[10] | d[11] << 8;
  d[off] = 0xF0;
  ck_assert_int_eq(skio_image_decode(d, fn, "bmp4.bmp", &p, &err), SKC_FORMAT);
  ck_assert_ptr_nonnull(strstr(err.message, "palette"));
  free(d);
  /* not an image of these kinds */
  ck_assert_int_eq(skio_image_decode((const unsigned char*)"\x89PNG\r\n\x1a\n", 8, "x.png", &p, &err), SKC_UNSUPPORTED);
  ck_assert_int_eq(skio_image_decode((const unsigned char*)"DDS ", 4, "x.dds", &p, &err), SKC_FORMAT);
  ck_assert_int_eq(skio_image_decode((const unsigned char*)"GIF89a", 6, "x.gif", &p, &err), SKC_UNSUPPORTED);
  /* typeless BC6H (DX10 format 94: signed or not is not said): named, not decoded */
  d = fixture_bytes("dx10_rgba.dds", "", &fn);
  d[128] = 94;
  ck_assert_int_eq(skio_image_decode(d, fn, NULL, &p, &err), SKC_UNSUPPORTED);
  ck_assert_ptr_nonnull(strstr(err.message, "DXGI format 94"));
  free(d);
}
END_TEST

/* A DDS of 128 bytes declaring 8192 x 8192 DXT5 pixels: refused as cut short before 256 MiB of pixels are allocated
 * and filled (1.2 s before session 72). Checked under an address-space limit of 64 MiB more than the test uses, so
 * an allocation first gives SKC_OUT_OF_MEMORY (not under AddressSanitizer, whose shadow memory needs the space). */
START_TEST(dds_cut_short_is_refused_before_allocating) {
#if defined(__SANITIZE_ADDRESS__)
  return;
#else
  unsigned char d[128] = {'D', 'D', 'S', ' ', 124};
  d[13] = d[17] = 0x20; /* height and width 8192 */
  d[80] = 4, memcpy(d + 84, "DXT5", 4);
  unsigned long pages = 0;
  FILE* f = fopen("/proc/self/statm", "r");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fscanf(f, "%lu", &pages), 1);
  fclose(f);
  struct rlimit was, lim;
  ck_assert_int_eq(getrlimit(RLIMIT_AS, &was), 0);
  lim = was;
  lim.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)64 << 20);
  if (was.rlim_max != RLIM_INFINITY && lim.rlim_cur > was.rlim_max) lim.rlim_cur = was.rlim_max;
  ck_assert_int_eq(setrlimit(RLIMIT_AS, &lim), 0);
  skio_pixels p;
  skc_err err = {0};
  const int rc = skio_image_decode(d, sizeof d, NULL, &p, &err);
  ck_assert_int_eq(setrlimit(RLIMIT_AS, &was), 0);
  ck_assert_msg(rc == SKC_FORMAT, "rc %d: %.400s", rc, err.message);
  ck_assert_ptr_nonnull(strstr(err.message, "cut short"));
#endif
}
END_TEST

/* Where Pillow 9.4 (the fixtures' reference) departs from the specification (ARB_texture_compression_bptc; Microsoft's
 * BC7 and BC6H pages): BC7 mode 8 (byte 0 zero, reserved) is all-zero texels, RGBA 0 0 0 0 (Pillow: opaque black);
 * a signed BC6H end point that a delta mode makes negative stays negative (Pillow does not sign-extend it after the
 * wrap and reads white). */
/* bits at..at+n-1 of a 128-bit block (least significant first) set to v */
static void put_bits(unsigned char* b, unsigned at, unsigned n, uint64_t v) {
  for (unsigned k = 0; k < n; ++k, ++at)
    b[at / 8] = (unsigned char)((b[at / 8] & ~(1u << at % 8)) | (unsigned)(v >> k & 1) << at % 8);
}

START_TEST(bc7_and_bc6h_blocks_decode_as_the_specification_says) {
  unsigned char b[16], px[16][4];
  for (int i = 0; i < 16; ++i) b[i] = (unsigned char)(0x5A + 37 * i);
  b[0] = 0;
  skio_bc7_block(b, px);
  for (int i = 0; i < 16; ++i) ck_assert_msg(!px[i][0] && !px[i][1] && !px[i][2] && !px[i][3], "texel %d", i);
  /* mode 6, one subset (bit 6): R, G, B, A of 7 bits for end points 0 and 1 (bits 7-62; end point 0 all ones, 1 all
   * zeros), their P-bits (63, 64: both 1), then 4-bit indices, texel 0's of 3 bits (65-67): index i at texel i */
  memset(b, 0, sizeof b);
  put_bits(b, 6, 1, 1);
  for (unsigned c = 0; c < 4; ++c) put_bits(b, 7 + 14 * c, 7, 0x7F);
  put_bits(b, 63, 2, 3);
  for (unsigned i = 1; i < 16; ++i) put_bits(b, 68 + 4 * (i - 1), 4, i);
  skio_bc7_block(b, px);
  static const unsigned char w4[16] = {0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64};
  for (int i = 0; i < 16; ++i) /* e0 255, e1 1 (0000000 then P-bit 1, bits repeated: 1) */
    for (int c = 0; c < 4; ++c) ck_assert_uint_eq(px[i][c], ((64 - w4[i]) * 255 + w4[i] * 1 + 32) >> 6);
  /* BC6H signed mode 0 (2 mode bits 00): r0 g0 b0 = -1 (10 bits at 5-34), every delta 0, partition 0, every index
   * at its largest (bits 82-127): every end point is e0 + 0 = -1, negative, so every texel is 0 once clamped */
  memset(b, 0, sizeof b);
  put_bits(b, 5, 30, 0x3FFFFFFF);
  put_bits(b, 82, 46, ((uint64_t)1 << 46) - 1);
  skio_bc6h_block(b, true, px);
  for (int i = 0; i < 16; ++i) ck_assert_msg(!px[i][0] && !px[i][1] && !px[i][2] && px[i][3] == 255, "texel %d", i);
  /* the same block unsigned: e0 = 1023 of 10 bits unquantizes to 0xFFFF, the largest half float below infinity */
  skio_bc6h_block(b, false, px);
  for (int i = 0; i < 16; ++i) ck_assert_msg(px[i][0] == 255 && px[i][1] == 255 && px[i][2] == 255, "texel %d", i);
}
END_TEST

/* textured_rig.dae with its base colour texture as a TGA (a BMP, a DDS) beside it: .glb and .gltf keep it as a PNG of
 * the same pixels named <stem>.png; the normal map stays the PNG it was. */
START_TEST(gltf_writes_tga_bmp_and_dds_textures_as_png) {
  static const char* kinds[] = {"pil_rgba_rle.tga", "bmp32_v5_alpha.bmp", "bmp_rle4.bmp",
                                "bc_dxt5.dds",      "bc7_mode7.dds",      "bc6h_uf16.dds"};
  static const char* outs[] = {"out.glb", "out.gltf"};
  size_t dn = 0;
  unsigned char* dae = (unsigned char*)skt_slurp(skt_data("textured_rig.dae"), &dn);
  ck_assert_ptr_nonnull(dae);
  char dir[] = "/tmp/skt_img_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  for (int k = 0; k < (int)(sizeof kinds / sizeof kinds[0]); ++k) {
    char path[512];
    /* the .dae naming the texture instead of textured_rig_albedo.png */
    const char* at = strstr((const char*)dae, "textured_rig_albedo.png");
    ck_assert_ptr_nonnull(at);
    snprintf(path, sizeof path, "%s/rig.dae", dir);
    FILE* fp = fopen(path, "wb");
    const size_t pre = (size_t)(at - (const char*)dae);
    fwrite(dae, 1, pre, fp);
    fputs(kinds[k], fp);
    fwrite(at + strlen("textured_rig_albedo.png"), 1, dn - pre - strlen("textured_rig_albedo.png"), fp);
    fclose(fp);
    size_t tn = 0, rn = 0;
    unsigned char* tex = fixture_bytes(kinds[k], "", &tn);
    unsigned char* ref = fixture_bytes(kinds[k], ".rgba", &rn);
    snprintf(path, sizeof path, "%s/%s", dir, kinds[k]);
    spill(path, tex, tn);
    skio_scene* s = NULL;
    skc_err err = {0};
    snprintf(path, sizeof path, "%s/rig.dae", dir);
    ck_assert_msg(skio_scene_import(path, NULL, &s, &err) == SKC_OK, "%s", err.message);
    for (int o = 0; o < 2; ++o) {
      snprintf(path, sizeof path, "%s/%s", dir, outs[o]);
      skio_export_options eo = {0};
      ck_assert_msg(skio_scene_export(s, path, &eo, &err) == SKC_OK, "%s", err.message);
      skio_scene* back = NULL;
      ck_assert_msg(skio_scene_import(path, NULL, &back, &err) == SKC_OK, "%s", err.message);
      char want[80];
      snprintf(want, sizeof want, "%.*s.png", (int)(strrchr(kinds[k], '.') - kinds[k]), kinds[k]);
      const skio_image* im = NULL;
      for (uint32_t i = 0; i < back->image_count; ++i)
        if (!strcmp(back->images[i].name, want)) im = &back->images[i];
      ck_assert_msg(im != NULL, "%s -> %s: no image %s", kinds[k], outs[o], want);
      ck_assert_str_eq(im->mime, "image/png");
      unsigned w = 0, h = 0;
      unsigned char* px = png_read(im->data, im->size, &w, &h);
      ck_assert_ptr_nonnull(px);
      ck_assert_uint_eq((size_t)w * h * 4, rn);
      const unsigned diff = max_diff(px, ref, (size_t)w * h), tol = strstr(kinds[k], "bc6h") ? 1 : 0;
      ck_assert_msg(diff <= tol, "%s -> %s: pixels differ by %u", kinds[k], outs[o], diff);
      free(px);
      skio_scene_destroy(back);
      unlink(path);
      snprintf(path, sizeof path, "%s/out.bin", dir);
      unlink(path);
    }
    skio_scene_destroy(s);
    snprintf(path, sizeof path, "%s/%s", dir, kinds[k]);
    unlink(path);
    free(tex), free(ref);
  }
  char path[512];
  snprintf(path, sizeof path, "%s/rig.dae", dir);
  unlink(path);
  ck_assert_int_eq(rmdir(dir), 0);
  free(dae);
}
END_TEST

int main(void) {
  Suite* s = suite_create("images");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, fixtures_decode_as_pillow_reads_them);
  tcase_add_test(tc, png_written_holds_the_same_pixels);
  tcase_add_test(tc, damaged_images_are_errors);
  tcase_add_test(tc, bc7_and_bc6h_blocks_decode_as_the_specification_says);
  tcase_add_test(tc, dds_cut_short_is_refused_before_allocating);
  tcase_add_test(tc, gltf_writes_tga_bmp_and_dds_textures_as_png);
  suite_add_tcase(s, tc);
  return skt_run_suite(s);
}
