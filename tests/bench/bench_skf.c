/* bench_skf.c - .skf size and speed on the corpus, next to the baselines computed in the same run:
 * glTF u8 (8 B/vertex), u8 JOINTS+WEIGHTS + zlib-9, var-length (count, joints, weights per vertex) + zlib-9.
 * Sizes count the influence data only (MDSC + INFL chunks with their chunk headers); the joint table is apart.
 * Prints BENCH skf_corpus_bpv and BENCH skf_decode_subdiv2 (decode speed in thread CPU time: GB/s of the
 * 8-byte-per-vertex u8 JOINTS+WEIGHTS output, one reused skf_decoder, median of 31 rounds with min-max), and
 * meshoptimizer's vertex codec (meshopt_decodeVertexBuffer) on the same decoded JOINTS+WEIGHTS as 8-byte
 * u8x4+u8x4 vertices, timed in the same rounds, alternating with it: BENCH skf_over_meshopt_decode_subdiv2 (speed
 * ratio, median) and BENCH skf_over_meshopt_size_subdiv2 (bytes of .skf influence data / meshopt's); the speed
 * profile (SK_SKF_FAST, .skf 3.1) in the same rounds: BENCH skf_fast_over_meshopt_decode_subdiv2 and
 * BENCH skf_fast_over_meshopt_size_subdiv2, its decode into u16x4 and u8x8 (BENCH skf_fast_decode_<layout>_subdiv2,
 * ms), and its corpus size BENCH skf_fast_corpus_bpv. Needs
 * SKINKIT_ASSETS.
 * usage: bench_skf [--join] [asset-substring]   (--join: weld identical vertices on import first) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <meshoptimizer.h>
#include <zlib.h>

#include "sk_testutil.h"
#include "skf.h"
#include "skio_scene.h"

static const char* const k_assets[] = {
    "gltf/CesiumMan_subdiv2.glb", "gltf/CesiumMan.glb",       "gltf/Fox.glb",          "fbx/Fox_blender.fbx",
    "collada/CesiumMan_blender.dae", "x/Testwuson.X",         "md5/drone.md5mesh",     "ogre/Clonk/Graphics.mesh",
    "b3d/character.b3d",          "fbx/huesitos.fbx",         "gltf/SimpleSkin.gltf",  "gltf/quad_skin.glb",
};

/* thread CPU time: the build machine is shared, so wall time would measure the neighbours */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* skf decode (one reused decoder) against meshoptimizer's vertex codec on the same JOINTS+WEIGHTS (u8x4 + u8x4 per
 * vertex, mesh by mesh as skf does), alternated: each round takes the best of 5 calls of each, so a round measures
 * both under the same load; the rounds give median and min-max. */
static void race_meshopt(const unsigned char* file, size_t fsize, const skf_mesh_output* outs, uint32_t mc, size_t verts,
                         size_t infl, const unsigned char* ffile, size_t ffsize, size_t finfl) {
  enum { ROUNDS = 31, CALLS = 5 };
  double g_fast[ROUNDS], fratio[ROUNDS];
  unsigned char** enc = calloc(mc, sizeof *enc);
  size_t* enc_n = calloc(mc, sizeof *enc_n);
  unsigned char* vb = malloc(verts * 8 + 8);
  unsigned char* back = malloc(verts * 8 + 8);
  size_t mo_bytes = 0;
  skf_decoder* dec = skf_decoder_create();
  skf_error de;
  double g_skf[ROUNDS], g_mo[ROUNDS], ratio[ROUNDS], med, lo, hi;
  int ok = dec && vb && back && enc && enc_n;
  for (uint32_t m = 0; m < mc; ++m) ok = ok && outs[m].joint_bytes == 1 && outs[m].influences == 4;
  for (uint32_t m = 0; ok && m < mc; ++m) {
    size_t nv = outs[m].vertex_capacity;
    for (size_t v = 0; v < nv; ++v) {
      memcpy(vb + 8 * v, (const unsigned char*)outs[m].joints + 4 * v, 4);
      memcpy(vb + 8 * v + 4, (const unsigned char*)outs[m].weights + 4 * v, 4);
    }
    enc[m] = malloc(meshopt_encodeVertexBufferBound(nv, 8));
    ok = enc[m] != NULL;
    if (ok) enc_n[m] = meshopt_encodeVertexBuffer(enc[m], meshopt_encodeVertexBufferBound(nv, 8), vb, nv, 8);
    mo_bytes += enc_n[m];
  }
  for (int r = 0; ok && r < ROUNDS; ++r) {
    double bs = 1e30, bm = 1e30, bf = 1e30;
    for (int c = 0; c < CALLS; ++c) {
      double t0 = now();
      ok = skf_decoder_decode_all(dec, file, fsize, outs, &de) == SKF_OK;
      double t1 = now();
      for (uint32_t m = 0; m < mc; ++m)
        ok = ok && meshopt_decodeVertexBuffer(back, outs[m].vertex_capacity, 8, enc[m], enc_n[m]) == 0;
      double t2 = now();
      ok = ok && skf_decoder_decode_all(dec, ffile, ffsize, outs, &de) == SKF_OK;
      double t3 = now();
      if (t1 - t0 < bs) bs = t1 - t0;
      if (t2 - t1 < bm) bm = t2 - t1;
      if (t3 - t2 < bf) bf = t3 - t2;
    }
    g_skf[r] = verts * 8.0 / bs / 1e9;
    g_mo[r] = verts * 8.0 / bm / 1e9;
    g_fast[r] = verts * 8.0 / bf / 1e9;
    ratio[r] = bm / bs;
    fratio[r] = bm / bf;
  }
  if (ok) {
    printf("skf decoder scratch %zu bytes (reused, allocated once)\n", skf_decoder_scratch_bytes(dec));
    med = skt_median(g_skf, ROUNDS, &lo, &hi);
    printf("decode skf     %.3f GB/s (min %.3f, max %.3f over %d rounds)  %zu B influence data\n", med, lo, hi, ROUNDS, infl);
    printf("BENCH skf_decode_subdiv2 %.3f gbps\n", med);
    med = skt_median(g_mo, ROUNDS, &lo, &hi);
    printf("decode meshopt %.3f GB/s (min %.3f, max %.3f)  %zu B (meshopt_encodeVertexBuffer, u8x4+u8x4)\n", med, lo, hi,
           mo_bytes);
    med = skt_median(ratio, ROUNDS, &lo, &hi);
    printf("skf / meshopt decode speed %.3f (min %.3f, max %.3f), size %.3f\n", med, lo, hi, (double)infl / mo_bytes);
    printf("BENCH skf_over_meshopt_decode_subdiv2 %.3f ratio\n", med);
    printf("BENCH skf_over_meshopt_size_subdiv2 %.3f ratio\n", (double)infl / mo_bytes);
    med = skt_median(g_fast, ROUNDS, &lo, &hi);
    printf("decode skf fast %.3f GB/s (min %.3f, max %.3f)  %zu B influence data (speed profile)\n", med, lo, hi, finfl);
    med = skt_median(fratio, ROUNDS, &lo, &hi);
    printf("skf fast / meshopt decode speed %.3f (min %.3f, max %.3f), size %.3f\n", med, lo, hi,
           (double)finfl / mo_bytes);
    printf("BENCH skf_fast_over_meshopt_decode_subdiv2 %.3f ratio\n", med);
    printf("BENCH skf_fast_over_meshopt_size_subdiv2 %.3f ratio\n", (double)finfl / mo_bytes);
  } else {
    printf("FAIL decode race: %s\n", dec ? de.message : "no decoder");
  }
  for (uint32_t m = 0; enc && m < mc; ++m) free(enc[m]);
  free(enc);
  free(enc_n);
  free(vb);
  free(back);
  skf_decoder_destroy(dec);
}

/* The speed profile into other output layouts engines ask for (u16 joints and weights, 4 slots; u8, 8 slots): ms a
 * decode of the whole file, median and min-max of 31 rounds of the best of 5 calls; BENCH
 * skf_fast_decode_<layout>_subdiv2 (ms). */
static void fast_layouts(const unsigned char* ffile, size_t ffsize, const skf_mesh_output* outs, uint32_t mc) {
  enum { ROUNDS = 31, CALLS = 5 };
  static const struct {
    const char* name;
    uint32_t k, bytes;
  } lay[] = {{"u16x4", 4, 2}, {"u8x8", 8, 1}};
  skf_mesh_output* o = calloc(mc, sizeof *o);
  skf_decoder* dec = skf_decoder_create();
  skf_error de;
  for (size_t l = 0; o && dec && l < sizeof lay / sizeof *lay; ++l) {
    double ms[ROUNDS], med, lo, hi;
    int ok = 1;
    for (uint32_t m = 0; m < mc; ++m) {
      o[m] = outs[m];
      o[m].influences = lay[l].k;
      o[m].joint_bytes = o[m].weight_bytes = lay[l].bytes;
      o[m].joints = malloc(outs[m].vertex_capacity * lay[l].k * lay[l].bytes + 1);
      o[m].weights = malloc(outs[m].vertex_capacity * lay[l].k * lay[l].bytes + 1);
      ok = ok && o[m].joints && o[m].weights;
    }
    for (int r = 0; ok && r < ROUNDS; ++r) {
      double best = 1e30;
      for (int c = 0; ok && c < CALLS; ++c) {
        double t0 = now();
        ok = skf_decoder_decode_all(dec, ffile, ffsize, o, &de) == SKF_OK;
        double d = now() - t0;
        if (d < best) best = d;
      }
      ms[r] = best * 1e3;
    }
    if (ok) {
      med = skt_median(ms, ROUNDS, &lo, &hi);
      printf("decode skf fast to %-5s %.3f ms (min %.3f, max %.3f)\n", lay[l].name, med, lo, hi);
      printf("BENCH skf_fast_decode_%s_subdiv2 %.3f ms\n", lay[l].name, med);
    } else {
      printf("FAIL fast decode to %s: %s\n", lay[l].name, de.message);
    }
    for (uint32_t m = 0; m < mc; ++m) {
      free(o[m].joints);
      free(o[m].weights);
    }
  }
  free(o);
  skf_decoder_destroy(dec);
}

static size_t zsize(const unsigned char* p, size_t n) {
  uLongf out = compressBound(n);
  unsigned char* b = malloc(out);
  if (!b || compress2(b, &out, p, n, 9) != Z_OK) out = 0;
  free(b);
  return out;
}

/* influence bytes: everything except the header and the JNTS chunk */
static size_t influence_bytes(const unsigned char* f, size_t n) {
  size_t pos = SKF_HEADER_SIZE, sum = 0;
  while (pos + SKF_CHUNK_HEADER_SIZE <= n) {
    uint32_t stored = (uint32_t)f[pos + 4] | (uint32_t)f[pos + 5] << 8 | (uint32_t)f[pos + 6] << 16 | (uint32_t)f[pos + 7] << 24;
    if (memcmp(f + pos, "JNTS", 4) != 0) sum += SKF_CHUNK_HEADER_SIZE + stored;
    pos += SKF_CHUNK_HEADER_SIZE + stored;
  }
  return sum;
}

int main(int argc, char** argv) {
  const char* dir = skt_assets_dir();
  if (!dir) return skt_assets_required() ? 1 : 0;
  /* --join: weld identical vertices first (Assimp JoinIdenticalVertices), as the corpus README counts them */
  int join = argc > 1 && !strcmp(argv[1], "--join");
  const char* only = argc > 1 + join ? argv[1 + join] : NULL;
  double t_fast = 0;
  double tv = 0, t_skf = 0, t_u8z = 0, t_varz = 0, max_err = 0, err_sum = 0, err_n = 0;
  int failures = 0;
  printf("%-30s %8s %6s %8s %8s %8s %8s %9s %9s %8s\n", "asset", "verts", "meshes", "skf", "u8+z9", "var+z9", "gltf", "maxerr",
         "meanerr", "enc MB/s");
  for (size_t a = 0; a < sizeof k_assets / sizeof *k_assets; ++a) {
    if (only && !strstr(k_assets[a], only)) continue;
    skio_scene* sc = NULL;
    skc_err e;
    skio_import_options io = {0};
    io.join_vertices = join != 0;
    if (skio_scene_import(skt_asset(k_assets[a]), &io, &sc, &e)) {
      printf("FAIL %s: %s\n", k_assets[a], e.message);
      ++failures;
      continue;
    }
    skio_skf_mesh* ms = calloc(sc->mesh_count + 1, sizeof *ms);
    uint32_t mc = 0;
    size_t verts = 0;
    for (uint32_t m = 0; m < sc->mesh_count; ++m) {
      if (!sc->meshes[m].skin) continue;
      ms[mc].skin = sc->meshes[m].skin;
      ms[mc].positions = sc->meshes[m].positions;
      ms[mc].indices = sc->meshes[m].indices;
      ms[mc].index_count = getenv("SKF_FILE_ORDER") ? 0 : sc->meshes[m].index_count;
      verts += sc->meshes[m].vertex_count;
      ++mc;
    }
    if (!sc->skeleton || !mc) {
      printf("%-30s no skin\n", k_assets[a]);
      free(ms);
      skio_scene_destroy(sc);
      continue;
    }
    skio_skf_options opt = {0};
    unsigned char* file = NULL;
    size_t fsize = 0;
    double t0 = now();
    if (skio_skf_encode(sc->skeleton, ms, mc, &opt, &file, &fsize, &e)) {
      printf("FAIL %s: encode: %s\n", k_assets[a], e.message);
      ++failures;
      free(ms);
      skio_scene_destroy(sc);
      continue;
    }
    double enc_s = now() - t0;
    size_t infl = influence_bytes(file, fsize);
    /* the speed profile of the same meshes: decoded below against the default file's output */
    skio_skf_options fopt = opt;
    fopt.profile = SKIO_SKF_PROFILE_FAST;
    unsigned char* ffile = NULL;
    size_t ffsize = 0;
    if (skio_skf_encode(sc->skeleton, ms, mc, &fopt, &ffile, &ffsize, &e)) {
      printf("FAIL %s: encode (speed profile): %s\n", k_assets[a], e.message);
      ++failures;
    }
    size_t finfl = ffile ? influence_bytes(ffile, ffsize) : 0;
    /* baselines: canonical quantization, 4 slots, u8 */
    unsigned char* jw = calloc(verts * 8 + 1, 1);
    unsigned char* var = malloc(verts * 9 + 1);
    unsigned char** outj = calloc(mc, sizeof *outj);
    unsigned char** outw = calloc(mc, sizeof *outw);
    skf_mesh_output* outs = calloc(mc, sizeof *outs);
    size_t vn = 0, base = 0;
    double a_max = 0, a_sum = 0, a_n = 0;
    for (uint32_t m = 0; m < mc; ++m) {
      const skc_skin* s = ms[m].skin;
      for (size_t v = 0; v < s->vertex_count; ++v) {
        uint32_t qj[8], qw[8], tj[8];
        float tw[8];
        size_t b = s->offsets[v], cnt = s->offsets[v + 1] - b;
        size_t n = skio_skf_quantize_vertex(s->joints + b, s->weights + b, cnt, 4, 255, qj, qw);
        var[vn++] = (unsigned char)n;
        for (size_t i = 0; i < n; ++i) {
          jw[(base + v) * 4 + i] = (unsigned char)qj[i];
          jw[verts * 4 + (base + v) * 4 + i] = (unsigned char)qw[i];
          var[vn++] = (unsigned char)qj[i];
        }
        for (size_t i = 0; i + 1 < n; ++i) var[vn++] = (unsigned char)qw[i];
        /* weight error against the normalized, limited source */
        size_t tn = skc_select_top(s->joints + b, s->weights + b, cnt, 4, tj, tw);
        for (size_t i = 0; i < tn; ++i) {
          uint32_t q = 0;
          for (size_t t = 0; t < n; ++t)
            if (qj[t] == tj[i]) q = qw[t];
          double d = fabs(q / 255.0 - tw[i]);
          if (d > a_max) a_max = d;
          a_sum += d;
          a_n += 1;
        }
      }
      outj[m] = malloc(s->vertex_count * 4 + 1);
      outw[m] = malloc(s->vertex_count * 4 + 1);
      outs[m].joints = outj[m];
      outs[m].weights = outw[m];
      outs[m].vertex_capacity = s->vertex_count;
      outs[m].influences = 4;
      outs[m].joint_bytes = sc->skeleton->joint_count > 256 ? 2 : 1;
      outs[m].weight_bytes = 1;
      outs[m].indices = ms[m].indices;
      outs[m].index_count = ms[m].index_count;
      outs[m].positions = ms[m].positions;
      base += s->vertex_count;
    }
    size_t u8z = zsize(jw, verts * 8), varz = zsize(var, vn);
    /* decode check + speed */
    skf_error de;
    int drc = skf_decode_all(file, fsize, outs, &de);
    if (drc) {
      printf("FAIL %s: decode: %s\n", k_assets[a], de.message);
      ++failures;
    }
    if (!drc && ffile) { /* the speed profile decodes to exactly the same arrays */
      int same = 1;
      unsigned char** fj = calloc(mc, sizeof *fj);
      unsigned char** fw = calloc(mc, sizeof *fw);
      skf_mesh_output* fo = calloc(mc, sizeof *fo);
      for (uint32_t m = 0; fj && fw && fo && m < mc; ++m) {
        fo[m] = outs[m];
        fj[m] = malloc(outs[m].vertex_capacity * 4 * outs[m].joint_bytes + 1);
        fw[m] = malloc(outs[m].vertex_capacity * 4 + 1);
        fo[m].joints = fj[m];
        fo[m].weights = fw[m];
      }
      if (!fj || !fw || !fo || skf_decode_all(ffile, ffsize, fo, &de)) {
        same = 0;
      } else {
        for (uint32_t m = 0; m < mc; ++m)
          same = same && !memcmp(fj[m], outs[m].joints, outs[m].vertex_capacity * 4 * outs[m].joint_bytes) &&
                 !memcmp(fw[m], outs[m].weights, outs[m].vertex_capacity * 4);
      }
      if (!same) {
        printf("FAIL %s: speed profile decodes differently (%s)\n", k_assets[a], de.message);
        ++failures;
      }
      for (uint32_t m = 0; fj && fw && m < mc; ++m) {
        free(fj[m]);
        free(fw[m]);
      }
      free(fj);
      free(fw);
      free(fo);
    }
    double dec_gbps = 0;
    if (!drc && strstr(k_assets[a], "subdiv2")) {
      /* one-shot API (a decoder per call): best of many runs (at least 20, for at least 1 s of thread CPU time) */
      int iters = 0;
      double t1 = now(), best = 1e30;
      while (iters < 20 || now() - t1 < 1.0) {
        double t2 = now();
        skf_decode_all(file, fsize, outs, &de);
        double dt = now() - t2;
        if (dt < best) best = dt;
        ++iters;
      }
      dec_gbps = verts * 8.0 / best / 1e9;
      /* where the time goes: checksums + chunk walk (peek), inflating the influence chunks alone */
      double best_peek = 1e30, best_infl = 1e30;
      unsigned char* scratch = malloc(verts * 40 + 4096);
      for (int r = 0; r < 20 && scratch; ++r) {
        skf_info inf;
        double t2 = now();
        skf_peek(file, fsize, &inf, &de);
        double t3 = now();
        for (uint32_t ci = 0; ci < inf.chunk_count; ++ci) {
          skf_chunk_info ch;
          skf_get_chunk(file, fsize, ci, &ch, &de);
          if (strcmp(ch.tag, "INFL")) continue;
          uLongf rn = verts * 40 + 4096;
          uncompress(scratch, &rn, file + ch.offset + SKF_CHUNK_HEADER_SIZE, ch.stored_size);
        }
        double t4 = now();
        if (t3 - t2 < best_peek) best_peek = t3 - t2;
        if (t4 - t3 < best_infl) best_infl = t4 - t3;
      }
      free(scratch);
      printf("decode %s (skf_decode_all): %.3f ms best of %d (peek: crc + chunk walk %.3f ms; inflate INFL alone ~%.3f ms)\n", k_assets[a],
             best * 1e3, iters, best_peek * 1e3, best_infl * 1e3);
    }
    printf("%-30s %8zu %6u %8.3f %8.3f %8.3f %8.3f %9.5f %9.6f %8.1f", k_assets[a], verts, mc, (double)infl / verts,
           (double)u8z / verts, (double)varz / verts, 8.0, a_max * 255, a_n ? a_sum / a_n * 255 : 0,
           verts * 8.0 / enc_s / 1e6);
    if (dec_gbps > 0) printf("  skf_decode_all best %.2f GB/s", dec_gbps);
    printf("   (file %zu B, influence %zu B)\n", fsize, infl);
    printf("%-30s speed profile %.3f B/vertex\n", "", (double)finfl / verts);
    if (dec_gbps > 0 && ffile) {
      race_meshopt(file, fsize, outs, mc, verts, infl, ffile, ffsize, finfl);
      fast_layouts(ffile, ffsize, outs, mc);
    }
    free(ffile);
    tv += verts;
    t_skf += infl;
    t_fast += finfl;
    t_u8z += u8z;
    t_varz += varz;
    err_sum += a_sum;
    err_n += a_n;
    if (a_max > max_err) max_err = a_max;
    for (uint32_t m = 0; m < mc; ++m) {
      free(outj[m]);
      free(outw[m]);
    }
    free(outj);
    free(outw);
    free(outs);
    free(jw);
    free(var);
    free(file);
    free(ms);
    skio_scene_destroy(sc);
  }
  if (tv > 0) {
    printf("%-30s %8.0f %6s %8.3f %8.3f %8.3f %8.3f %9.5f %9.6f  (weight errors in units of 1/255)\n", "TOTAL (vertex-weighted)", tv,
           "", t_skf / tv, t_u8z / tv, t_varz / tv, 8.0, max_err * 255, err_n ? err_sum / err_n * 255 : 0);
    printf("BENCH skf_corpus_bpv%s %.4f bpv\n", join ? "_joined" : "", t_skf / tv);
    printf("BENCH skf_fast_corpus_bpv%s %.4f bpv\n", join ? "_joined" : "", t_fast / tv);
  }
  return failures ? 1 : 0;
}
