/* skf_runtime_example.c - what an engine does with the standalone decoder: one header, zlib, C99.
 * Built by CTest in isolation with exactly: cc -std=c99 -Wall -Wextra -pedantic -Werror ... -lz
 *
 * usage: skf_runtime_example FILE.skf [REFERENCE.bin]
 * Decodes every mesh to JOINTS_0/WEIGHTS_0 (u8 joints when <= 256 joints else u16, u8 weights, 4 or 8 slots)
 * and the inverse bind matrices; checks weight sums; with a reference (written by skf_runtime_gen from the
 * library decoder) compares byte for byte. Meshes coded in triangle order or welded by position need the
 * engine's own geometry: it is read from FILE.skf.geo (written by skf_runtime_gen) when present. Exit 0 on
 * success. */
#define SKF_DECODER_IMPLEMENTATION
#include "skf_decoder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  unsigned char* buf;
  long n;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = (unsigned char*)malloc(n > 0 ? (size_t)n : 1u);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return buf;
}

int main(int argc, char** argv) {
  size_t size = 0, ref_size = 0, ref_pos = 0, names_size = 0;
  unsigned char* data;
  unsigned char* ref = NULL;
  skf_info info;
  skf_error err;
  float* inverse_binds;
  uint32_t m;
  int failed = 0;
  unsigned char* geo = NULL;
  size_t geo_size = 0, geo_pos = 0, index_count;
  float* positions;
  uint32_t* indices;
  char geo_path[4096];
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE.skf [REFERENCE.bin]\n", argv[0]);
    return 2;
  }
  data = read_file(argv[1], &size);
  if (!data) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  if (argc > 2) ref = read_file(argv[2], &ref_size);
  if (strlen(argv[1]) + 5 <= sizeof geo_path) {
    sprintf(geo_path, "%s.geo", argv[1]);
    geo = read_file(geo_path, &geo_size);
  }
  if (skf_peek(data, size, &info, &err) != SKF_OK) {
    fprintf(stderr, "%s: %s\n", argv[1], err.message);
    return 1;
  }
  printf("skf %u.%u: %u joints, %u meshes, %lu vertices, %u-bit weights, up to %u influences\n", info.major, info.minor,
         info.joint_count, info.mesh_count, (unsigned long)info.vertex_count, info.weight_bits, info.max_influences);

  inverse_binds = (float*)malloc(16u * info.joint_count * sizeof(float));
  if (!inverse_binds || skf_decode_joints(data, size, NULL, inverse_binds, NULL, 0, &names_size, &err) != SKF_OK) {
    fprintf(stderr, "joints: %s\n", inverse_binds ? err.message : "no memory");
    return 1;
  }
  if (ref) {
    if (ref_size < 64u * info.joint_count || memcmp(ref, inverse_binds, 64u * info.joint_count) != 0) {
      fprintf(stderr, "inverse binds differ from the reference\n");
      failed = 1;
    }
    ref_pos = 64u * info.joint_count;
  }

  for (m = 0; m < info.mesh_count; ++m) {
    skf_mesh_info mi;
    skf_mesh_output out;
    size_t v, k, vc, jbytes;
    uint32_t slots;
    if (skf_get_mesh_info(data, size, m, &mi, &err) != SKF_OK) {
      fprintf(stderr, "mesh %u: %s\n", m, err.message);
      return 1;
    }
    vc = (size_t)mi.vertex_count;
    /* the engine's geometry of this mesh (what it renders with): rest positions and the triangle list */
    positions = NULL;
    indices = NULL;
    index_count = 0;
    if (geo) {
      uint32_t hdr[2];
      size_t pbytes, ibytes;
      if (geo_size - geo_pos < sizeof hdr) return 1;
      memcpy(hdr, geo + geo_pos, sizeof hdr);
      pbytes = 12u * (size_t)hdr[0];
      ibytes = 4u * (size_t)hdr[1];
      if (hdr[0] != vc || geo_size - geo_pos - sizeof hdr < pbytes + ibytes) {
        fprintf(stderr, "mesh %u: the geometry file does not match\n", m);
        return 1;
      }
      positions = (float*)malloc(pbytes + 4);
      indices = (uint32_t*)malloc(ibytes + 4);
      if (!positions || !indices) return 1;
      memcpy(positions, geo + geo_pos + sizeof hdr, pbytes);
      memcpy(indices, geo + geo_pos + sizeof hdr + pbytes, ibytes);
      index_count = hdr[1];
      geo_pos += sizeof hdr + pbytes + ibytes;
    }
    if (mi.order != SKF_ORDER_FILE && !geo) {
      fprintf(stderr, "mesh %u needs its %s (no geometry file)\n", m,
              mi.order == SKF_ORDER_WELDED ? "rest positions" : "index buffer");
      return 1;
    }
    slots = mi.max_influences > 4 ? 8u : 4u;
    memset(&out, 0, sizeof out);
    out.influences = slots;
    out.joint_bytes = info.joint_count > 256 ? 2u : 1u;
    out.weight_bytes = 1;
    out.vertex_capacity = vc;
    out.indices = indices;
    out.index_count = index_count;
    out.positions = positions;
    jbytes = vc * slots * out.joint_bytes;
    out.joints = malloc(jbytes + 1);
    out.weights = malloc(vc * slots + 1);
    if (!out.joints || !out.weights) return 1;
    if (skf_decode_mesh(data, size, m, &out, &err) != SKF_OK) {
      fprintf(stderr, "mesh %u: %s\n", m, err.message);
      return 1;
    }
    for (v = 0; v < vc; ++v) {
      unsigned sum = 0;
      for (k = 0; k < slots; ++k) sum += ((unsigned char*)out.weights)[v * slots + k];
      if (sum != 255 && sum != 0) {
        fprintf(stderr, "mesh %u vertex %lu: weights sum to %u\n", m, (unsigned long)v, sum);
        failed = 1;
        break;
      }
    }
    if (ref) {
      if (ref_size - ref_pos < jbytes + vc * slots || memcmp(ref + ref_pos, out.joints, jbytes) != 0 ||
          memcmp(ref + ref_pos + jbytes, out.weights, vc * slots) != 0) {
        fprintf(stderr, "mesh %u differs from the library decoder's output\n", m);
        failed = 1;
      }
      ref_pos += jbytes + vc * slots;
    }
    printf("mesh %u: %lu vertices, %u slots, %s order, OK\n", m, (unsigned long)vc, slots,
           mi.order == SKF_ORDER_WELDED ? "welded" : mi.order == SKF_ORDER_INDEX_BUFFER ? "triangle" : "file");
    free(out.joints);
    free(out.weights);
    free(positions);
    free(indices);
  }
  if (ref && ref_pos != ref_size) {
    fprintf(stderr, "reference has %lu extra bytes\n", (unsigned long)(ref_size - ref_pos));
    failed = 1;
  }
  free(inverse_binds);
  free(geo);
  free(ref);
  free(data);
  puts(failed ? "FAILED" : "all meshes decoded");
  return failed;
}
