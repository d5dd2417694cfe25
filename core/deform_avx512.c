/* deform_avx512.c - 16-wide (zmm) SoA deform path (built with -mavx512f/vl/bw/dq -mavx2 -mfma, picked at run
 * time). Covers the common job: packed u8/u16 joints with K = 1, 2, 4 or 8 float weights, packed float3
 * positions (and normals), LBS (rigid palette for normals; NO_RENORMALIZE allowed), rigid-palette DQS, or COR
 * whose record signs need no per-vertex dot (K = 1, uniform signs or the hemisphere table; see the COR section). Every
 * other job, the tail of a range and any block of 16 vertices with something unusual (joint out of range, weight
 * sum 0 or not finite, zero or huge normal, cancelled DQS blend) go to the AVX2 kernel (whose results follow the
 * scalar generic loop) before anything of the block is written. cglm must not be included here.
 *
 * LBS: per vertex the blended 4x4 matrix in one zmm (one load + one FMA with a broadcast weight per influence), a
 * 16x16 transpose, then the vertex math on x, y, z of 16 vertices at once.
 * DQS with the hemisphere table (deform.c builds it per call when the job has at least J^2 vertices, J <= 256):
 * the pivot (largest weight, first on ties) per lane from the transposed weights, then per vertex the blend of its
 * K dual quaternions in one ymm register, each read as +dq or -dq at the offset the table gives for (pivot, joint)
 * - the scalar loop's sign test, no per-vertex dots and no shuffles - and one 16x8 transpose. The blocks are
 * software-pipelined (pivot rows two blocks ahead, the next block's blend interleaved with this block's transform).
 * DQS with uniform signs (deform.c dq_uni: one sign per joint explains every pivot's test, as on a posed character)
 * runs the same loop without the pivot rows: each influence reads its joint's consistently signed record.
 * DQS without the table: everything in SoA form: per influence the 16 dual quaternions transposed to 8 registers,
 * the pivot swapped to slot 0 per lane, each weight takes the sign of its real part's dot with the pivot's, the
 * blend is 8 FMAs per influence for 16 vertices.
 * Both then apply x -> x + s (w (q x x) + q x (q x x)) + s (w d - d_w q + q x d) with s = 2 / |q|^2 (exact for an
 * unnormalized blend). */
#include "skc_deform.h"

#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && \
    defined(__FMA__) && defined(__AVX2__)
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define AI SKC_KERNEL_INLINE
#define SW 16
typedef __m512 V;

AI float ldf(const unsigned char* p) {
  float x;
  memcpy(&x, p, sizeof x);
  return x;
}

AI uint32_t ldj(const unsigned char* p, uint32_t k, const int JT) {
  if (JT == 1) return p[k];
  uint16_t x;
  memcpy(&x, p + 2 * k, sizeof x);
  return x;
}

/* ---- packed float3 <-> SoA: two two-source permutes per component ---- */
#define I16(M, a)                                                                                                   \
  _mm512_setr_epi32(M(a, 0), M(a, 1), M(a, 2), M(a, 3), M(a, 4), M(a, 5), M(a, 6), M(a, 7), M(a, 8), M(a, 9),    \
                    M(a, 10), M(a, 11), M(a, 12), M(a, 13), M(a, 14), M(a, 15))
/* load: component c of vertex i is float 3i + c of the 48 (registers a | b | c) */
#define LD1(c, i) ((3 * (i) + (c)) < 32 ? 3 * (i) + (c) : 0)
#define LD2(c, i) ((3 * (i) + (c)) < 32 ? (i) : 16 + 3 * (i) + (c)-32)
/* store: float n = 16 o + l is component n % 3 of vertex n / 3 */
#define SN(o, l) (16 * (o) + (l))
#define ST1(o, l) (SN(o, l) % 3 == 0 ? SN(o, l) / 3 : SN(o, l) % 3 == 1 ? 16 + SN(o, l) / 3 : 0)
#define ST2(o, l) (SN(o, l) % 3 == 2 ? 16 + SN(o, l) / 3 : (l))

AI void ld3(const unsigned char* p, V* x, V* y, V* z) {
  const float* f = (const float*)(const void*)p;
  const V a = _mm512_loadu_ps(f), b = _mm512_loadu_ps(f + 16), c = _mm512_loadu_ps(f + 32);
  *x = _mm512_permutex2var_ps(_mm512_permutex2var_ps(a, I16(LD1, 0), b), I16(LD2, 0), c);
  *y = _mm512_permutex2var_ps(_mm512_permutex2var_ps(a, I16(LD1, 1), b), I16(LD2, 1), c);
  *z = _mm512_permutex2var_ps(_mm512_permutex2var_ps(a, I16(LD1, 2), b), I16(LD2, 2), c);
}

/* Plain stores, as the AVX2 path's: non-temporal ones made a 1M-vertex job 3.4x slower there when the output is
 * read again soon after (the usual case: the next pass, or the upload, reads it back from memory). */
AI void st3(unsigned char* p, V x, V y, V z) {
  float* f = (float*)(void*)p;
  _mm512_storeu_ps(f, _mm512_permutex2var_ps(_mm512_permutex2var_ps(x, I16(ST1, 0), y), I16(ST2, 0), z));
  _mm512_storeu_ps(f + 16, _mm512_permutex2var_ps(_mm512_permutex2var_ps(x, I16(ST1, 1), y), I16(ST2, 1), z));
  _mm512_storeu_ps(f + 32, _mm512_permutex2var_ps(_mm512_permutex2var_ps(x, I16(ST1, 2), y), I16(ST2, 2), z));
}

/* ---- vertex-major (16 x K) -> influence-major (K registers of 16 lanes): out[k] lane i = in[i K + k] ---- */
#define TK2(k, i) (2 * (i) + (k))
#define TK4(k, i) ((4 * (i) + (k)) & 31)
#define TK8(k, i) ((8 * (i) + (k)) & 31)
AI void soa_k(const V* in, const uint32_t K, V* out) {
  if (K == 1) {
    out[0] = in[0];
  } else if (K == 2) {
    out[0] = _mm512_permutex2var_ps(in[0], I16(TK2, 0), in[1]);
    out[1] = _mm512_permutex2var_ps(in[0], I16(TK2, 1), in[1]);
  } else if (K == 4) {
#define TK4_(k)                                                                                    \
  out[k] = _mm512_mask_blend_ps((__mmask16)0xFF00, _mm512_permutex2var_ps(in[0], I16(TK4, k), in[1]), \
                                _mm512_permutex2var_ps(in[2], I16(TK4, k), in[3]))
    TK4_(0);
    TK4_(1);
    TK4_(2);
    TK4_(3);
#undef TK4_
  } else { /* K == 8: each register holds 2 vertices */
#define TK8_(k)                                                                                          \
  do {                                                                                                   \
    const __m512i ix = I16(TK8, k);                                                                      \
    V a = _mm512_permutex2var_ps(in[0], ix, in[1]), b = _mm512_permutex2var_ps(in[2], ix, in[3]);       \
    V c = _mm512_permutex2var_ps(in[4], ix, in[5]), d = _mm512_permutex2var_ps(in[6], ix, in[7]);       \
    out[k] = _mm512_mask_blend_ps((__mmask16)0xFF00, _mm512_mask_blend_ps((__mmask16)0x00F0, a, b),     \
                                  _mm512_mask_blend_ps((__mmask16)0xF000, c, d));                       \
  } while (0)
    TK8_(0);
    TK8_(1);
    TK8_(2);
    TK8_(3);
    TK8_(4);
    TK8_(5);
    TK8_(6);
    TK8_(7);
#undef TK8_
  }
}

/* The 16 K joints of the block as 32-bit integers (vertex-major, K registers); 1 if all are <= lim. */
AI int load_joints(const unsigned char* jb, const int JT, const uint32_t K, __m512i lim, __m512i* j) {
  __mmask16 bad = 0;
  _Pragma("GCC unroll 8")
  for (uint32_t o = 0; o < K; ++o) {
    j[o] = JT == 1 ? _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i*)(const void*)(jb + 16 * o)))
                   : _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i*)(const void*)(jb + 32 * o)));
    bad |= _mm512_cmpgt_epu32_mask(j[o], lim);
  }
  return bad == 0;
}

/* lanes whose |x| lies outside [lo, hi] (bit patterns of positive floats; NaN is outside) */
AI __mmask16 out_of_range(V x, uint32_t lo, uint32_t hi) {
  __m512i b = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x7fffffff));
  return _mm512_cmpgt_epu32_mask(_mm512_sub_epi32(b, _mm512_set1_epi32((int)lo)), _mm512_set1_epi32((int)(hi - lo)));
}

/* 16 matrices (one per register) -> r[R] lane i = m[i][R] */
AI void transpose16(const V m[16], V r[16]) {
  V t[16], u[16];
  _Pragma("GCC unroll 8")
  for (int p = 0; p < 8; ++p) {
    t[2 * p] = _mm512_unpacklo_ps(m[2 * p], m[2 * p + 1]);
    t[2 * p + 1] = _mm512_unpackhi_ps(m[2 * p], m[2 * p + 1]);
  }
  _Pragma("GCC unroll 4")
  for (int g = 0; g < 4; ++g) {
    __m512d a = _mm512_castps_pd(t[4 * g]), b = _mm512_castps_pd(t[4 * g + 1]);
    __m512d c = _mm512_castps_pd(t[4 * g + 2]), d = _mm512_castps_pd(t[4 * g + 3]);
    u[4 * g + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
    u[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
    u[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
    u[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
  }
  _Pragma("GCC unroll 4")
  for (int q = 0; q < 4; ++q) {
    V v0 = _mm512_shuffle_f32x4(u[q], u[4 + q], _MM_SHUFFLE(1, 0, 1, 0));
    V v1 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], _MM_SHUFFLE(1, 0, 1, 0));
    V w0 = _mm512_shuffle_f32x4(u[q], u[4 + q], _MM_SHUFFLE(3, 2, 3, 2));
    V w1 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], _MM_SHUFFLE(3, 2, 3, 2));
    r[q] = _mm512_shuffle_f32x4(v0, v1, _MM_SHUFFLE(2, 0, 2, 0));
    r[4 + q] = _mm512_shuffle_f32x4(v0, v1, _MM_SHUFFLE(3, 1, 3, 1));
    r[8 + q] = _mm512_shuffle_f32x4(w0, w1, _MM_SHUFFLE(2, 0, 2, 0));
    r[12 + q] = _mm512_shuffle_f32x4(w0, w1, _MM_SHUFFLE(3, 1, 3, 1));
  }
}

/* R[p] = rows (a, a + 4) of 8 floats for a = p (p < 4) or p + 4 (p >= 4) -> x[c] lane i = row i [c]: the
 * last stage is then one 128-bit-lane shuffle per output. */
AI void transpose8(const V R[8], V x[8]) {
  V t[8], u[8];
  _Pragma("GCC unroll 4")
  for (int p = 0; p < 4; ++p) {
    t[2 * p] = _mm512_unpacklo_ps(R[2 * p], R[2 * p + 1]);
    t[2 * p + 1] = _mm512_unpackhi_ps(R[2 * p], R[2 * p + 1]);
  }
  _Pragma("GCC unroll 2")
  for (int g = 0; g < 2; ++g) {
    __m512d a = _mm512_castps_pd(t[4 * g]), b = _mm512_castps_pd(t[4 * g + 1]);
    __m512d c = _mm512_castps_pd(t[4 * g + 2]), d = _mm512_castps_pd(t[4 * g + 3]);
    u[4 * g + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
    u[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
    u[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
    u[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
  }
  _Pragma("GCC unroll 4")
  for (int q = 0; q < 4; ++q) {
    x[q] = _mm512_shuffle_f32x4(u[q], u[4 + q], _MM_SHUFFLE(2, 0, 2, 0));
    x[4 + q] = _mm512_shuffle_f32x4(u[q], u[4 + q], _MM_SHUFFLE(3, 1, 3, 1));
  }
}

/* hides the contents of a just-stored offset array from the optimizer, so the offsets are read back with plain
 * loads (load ports) instead of being extracted lane by lane from the vector register (shuffle ports) */
#define LAUNDER(ptr) __asm__("" : "+r"(ptr) : : "memory")

/* 16 rows of 8 floats at base + off[i] -> x[c] lane i = row i [c] */
AI void gather8(const unsigned char* base, const uint32_t* off, V x[8]) {
  V R[8];
  _Pragma("GCC unroll 8")
  for (int p = 0; p < 8; ++p) {
    const int a = p < 4 ? p : p + 4;
    R[p] = _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_load_ps((const float*)(const void*)(base + off[a]))),
                              _mm256_load_ps((const float*)(const void*)(base + off[a + 4])), 1);
  }
  transpose8(R, x);
}

/* LBS blend: per vertex the blended matrix in one zmm (one load + one FMA with a broadcast weight per influence),
 * then a 16 x 16 transpose: r[4 col + row] lane i = vertex i's matrix entry; r[15] = the weight sum (palette
 * bottom rows are 0 0 0 1). */
AI void lbs_blend(const skc_deform_ctx* c, const unsigned char* jb, const unsigned char* wb, const int JT,
                  const uint32_t K, V r[SW]) {
  const unsigned char* P = (const unsigned char*)c->palette;
  V m[SW];
  _Pragma("GCC unroll 16")
  for (uint32_t i = 0; i < SW; ++i) { /* joints read again as scalars: integer ports, no store forwarding */
    const unsigned char* w = wb + 4 * K * i;
    const unsigned char* jr = jb + (size_t)K * (size_t)JT * i;
    V M = _mm512_setzero_ps();
    _Pragma("GCC unroll 8")
    for (uint32_t k = 0; k < K; ++k) {
      const uint32_t j = ldj(jr, k, JT);
      const V pm = _mm512_load_ps((const float*)(const void*)(P + 64 * (size_t)j));
      M = k == 0 ? _mm512_mul_ps(_mm512_set1_ps(ldf(w + 4 * k)), pm)
                 : _mm512_fmadd_ps(_mm512_set1_ps(ldf(w + 4 * k)), pm, M);
    }
    m[i] = M;
  }
  transpose16(m, r);
}

/* The block's weights and joints transposed (wk[k], jk[k] lane i = vertex i's k-th weight / joint), the lanes
 * whose weight sum is 0 or not finite (|sum| in [FLT_MIN, 3e38] like kfast; kbody keeps the input of a vertex
 * whose weights sum to 0), and the pivot: largest weight, first on ties (strict >, like kbody), its weight wmax,
 * slot kp and joint pj per lane. */
AI __mmask16 dqs_soa_pivot(const unsigned char* wb, const uint32_t K, const __m512i* jv, V* wk, __m512i* jk, V* wmax,
                           __m512i* kp, __m512i* pj) {
  V wv[8], jkf[8];
  _Pragma("GCC unroll 8")
  for (uint32_t o = 0; o < K; ++o) wv[o] = _mm512_loadu_ps((const float*)(const void*)(wb + 64 * o));
  soa_k(wv, K, wk);
  _Pragma("GCC unroll 8")
  for (uint32_t o = 0; o < K; ++o) wv[o] = _mm512_castsi512_ps(jv[o]);
  soa_k(wv, K, jkf);
  V wsum = wk[0], wm = wk[0];
  __m512i ks = _mm512_setzero_si512(), js = _mm512_castps_si512(jkf[0]);
  jk[0] = js;
  _Pragma("GCC unroll 8")
  for (uint32_t k = 1; k < K; ++k) {
    jk[k] = _mm512_castps_si512(jkf[k]);
    wsum = _mm512_add_ps(wsum, wk[k]);
    __mmask16 gt = _mm512_cmp_ps_mask(wk[k], wm, _CMP_GT_OQ);
    wm = _mm512_mask_mov_ps(wm, gt, wk[k]);
    ks = _mm512_mask_mov_epi32(ks, gt, _mm512_set1_epi32((int)k));
    js = _mm512_mask_mov_epi32(js, gt, jk[k]);
  }
  *wmax = wm;
  *kp = ks;
  *pj = js;
  return out_of_range(wsum, 0x00800000u, 0x7f61b1e6u);
}

/* DQS blend computing the hemisphere dots, everything in SoA form: per influence the 16 dual quaternions
 * transposed to 8 registers; the pivot (largest weight, first on ties) is picked from the transposed weights and
 * swapped to slot 0 per lane, each weight takes the sign of its real part's dot with the pivot's, the blend is 8
 * FMAs per influence. D[c] lane i = component c of vertex i's blend; returns the lanes whose weight sum is 0 or
 * not finite. */
AI __mmask16 dqs_blend_dots(const skc_deform_ctx* c, const unsigned char* wb, const uint32_t K, const __m512i* jv,
                            V D[8]) {
  /* influence-major: offk[k] lane i = byte offset of vertex i's k-th dual quaternion, wk[k] its weight */
  V wk[8], wmax;
  __m512i jk[8], kp, pj;
  const __mmask16 bad = dqs_soa_pivot(wb, K, jv, wk, jk, &wmax, &kp, &pj);
  const unsigned char* DQ = (const unsigned char*)c->dq;
  /* slot 0 and the pivot's slot swap per lane, so the pivot's dual quaternion is the first one gathered and the
   * others' dots need no extra pass */
  __m512i offk[8];
  _Pragma("GCC unroll 8")
  for (uint32_t k = 0; k < K; ++k) offk[k] = _mm512_slli_epi32(jk[k], 5);
  if (K > 1) {
    __m512i o0 = offk[0];
    _Pragma("GCC unroll 8")
    for (uint32_t k = 1; k < K; ++k) {
      __mmask16 is = _mm512_cmpeq_epi32_mask(kp, _mm512_set1_epi32((int)k));
      o0 = _mm512_mask_mov_epi32(o0, is, offk[k]);
      offk[k] = _mm512_mask_mov_epi32(offk[k], is, offk[0]);
      wk[k] = _mm512_mask_mov_ps(wk[k], is, wk[0]);
    }
    offk[0] = o0;
    wk[0] = wmax;
  }
  _Alignas(64) uint32_t off[SW * 8];
  _Pragma("GCC unroll 8")
  for (uint32_t k = 0; k < K; ++k) _mm512_store_si512((void*)(off + 16 * k), offk[k]);
  const uint32_t* offp = off;
  LAUNDER(offp);
  const __m512i sign = _mm512_set1_epi32((int)0x80000000u);
  V X[8], pq[4];
  pq[0] = pq[1] = pq[2] = pq[3] = _mm512_setzero_ps();
  _Pragma("GCC unroll 8")
  for (uint32_t k = 0; k < K; ++k) {
    gather8(DQ, offp + 16 * k, X);
    V w = wk[k];
    if (k == 0) {
      pq[0] = X[0];
      pq[1] = X[1];
      pq[2] = X[2];
      pq[3] = X[3];
    } else { /* the weight takes the sign of its real part's dot with the pivot's (d < 0 flips, like kbody) */
      V d = _mm512_fmadd_ps(X[3], pq[3],
                            _mm512_fmadd_ps(X[2], pq[2], _mm512_fmadd_ps(X[1], pq[1], _mm512_mul_ps(X[0], pq[0]))));
      __mmask16 neg = _mm512_cmp_ps_mask(d, _mm512_setzero_ps(), _CMP_LT_OQ);
      w = _mm512_mask_xor_ps(w, neg, w, _mm512_castsi512_ps(sign));
    }
    _Pragma("GCC unroll 8")
    for (int q = 0; q < 8; ++q) D[q] = k == 0 ? _mm512_mul_ps(w, X[q]) : _mm512_fmadd_ps(w, X[q], D[q]);
  }
  return bad;
}

/* DQS with the hemisphere table (K >= 2), stage 1: per lane the byte offset of its pivot joint's table row
 * (largest weight, first on ties, like kbody) from the transposed weights and joints, and the lanes whose weight
 * sum is 0 or not finite. Returns 0 if a joint of the block is out of range (rows are then not to be used). */
AI int dqs_pivot_rows(const skc_deform_ctx* c, size_t v, const int JT, const uint32_t K, const int UNI, __m512i lim,
                      const uint16_t* rows[SW], __mmask16* wbad) {
  const unsigned char* jb = c->joints + v * K * (size_t)JT;
  const unsigned char* wb = c->weights + v * K * 4;
  __m512i jv[8];
  if (!load_joints(jb, JT, K, lim, jv)) { /* rows that are safe to read (the blend reads a dummy block) */
    _Pragma("GCC unroll 16")
    for (int i = 0; i < SW; ++i) rows[i] = c->dq_sel;
    return 0;
  }
  V wk[8], wmax;
  __m512i jk[8], kp, pj;
  *wbad = dqs_soa_pivot(wb, K, jv, wk, jk, &wmax, &kp, &pj);
  if (UNI) return 1; /* uniform signs: no rows to look up */
  /* row pointers: dq_sel + (pj << shift) entries */
  const __m512i ro = _mm512_sllv_epi32(pj, _mm512_set1_epi32((int)c->dq_sel_shift + 1));
  const __m512i base = _mm512_set1_epi64((long long)(uintptr_t)c->dq_sel);
  const __m512i lo = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(ro));
  const __m512i hi = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(ro, 1));
  _mm512_store_si512((void*)rows, _mm512_add_epi64(base, lo));
  _mm512_store_si512((void*)(rows + 8), _mm512_add_epi64(base, hi));
  return 1;
}

/* Stage 2: per vertex the blend of its K dual quaternions in one ymm register (a broadcast weight times an aligned
 * load of the table's choice of +dq or -dq: no shuffles, no per-vertex dots), A[i] for vertices [i0, i1) of the
 * block with joints jb, weights wb and pivot rows rows. */
AI void dqs_blend_table(const skc_deform_ctx* c, const unsigned char* jb, const unsigned char* wb, const int JT,
                        const uint32_t K, const int UNI, const uint16_t* const* rp, const uint32_t i0,
                        const uint32_t i1, __m256* A) {
  const unsigned char* PM = (const unsigned char*)(UNI ? c->dq_uni : c->dq_pm);
  _Pragma("GCC unroll 16")
  for (uint32_t i = i0; i < i1; ++i) {
    const unsigned char* jr = jb + (size_t)K * (size_t)JT * i;
    const unsigned char* wr = wb + (size_t)K * 4 * i;
    const uint16_t* tr = UNI ? NULL : rp[i];
    __m256 a = _mm256_setzero_ps();
    /* the vertex's K * JT joint bytes (2 to 16) in one or two integer loads, joints taken out by shifts */
    uint64_t jw[2] = {0, 0};
    memcpy(&jw[0], jr, K * JT < 8 ? K * JT : 8);
    if (K * JT > 8) memcpy(&jw[1], jr + 8, 8);
    _Pragma("GCC unroll 8")
    for (uint32_t k = 0; k < K; ++k) {
      const uint32_t j = (uint32_t)(jw[k * JT / 8] >> (8 * (k * JT % 8))) & (JT == 1 ? 0xffu : 0xffffu);
      const __m256 x = _mm256_load_ps((const float*)(const void*)(PM + (UNI ? 32 * (size_t)j : tr[j])));
      const __m256 w = _mm256_set1_ps(ldf(wr + 4 * k));
      a = k == 0 ? _mm256_mul_ps(w, x) : _mm256_fmadd_ps(w, x, a);
    }
    A[i] = a;
  }
}

/* The 16 blends as one 16 x 8 transpose: D[c] lane i = component c of vertex i's blend. */
AI void dqs_blend_soa(const __m256* A, V D[8]) {
  V R[8];
  _Pragma("GCC unroll 8")
  for (int p = 0; p < 8; ++p) {
    const int a = p < 4 ? p : p + 4;
    R[p] = _mm512_insertf32x8(_mm512_castps256_ps512(A[a]), A[a + 4], 1);
  }
  transpose8(R, D);
}

/* The blended dual quaternions D (SoA, unnormalized) applied to the block's positions (and normals):
 * x -> x + s (w (q x x) + q x (q x x)) + s (w d - d_w q + q x d) with s = 2 / |q|^2 (exact for an unnormalized
 * blend); returns the lanes whose |q|^2 is tiny or not finite.
 * NX: the table blend of the next block (joints jbx, weights wbx, pivot rows rpx) into A, two vertices at each of
 * eight points of this transform, pinned there by empty asm statements on values of both. One block's work is
 * more than the out-of-order window holds, and the compiler would emit the whole load-bound blend before the
 * arithmetic-bound transform; interleaved, the two overlap. */
#define PIN(x) __asm__ volatile("" : "+v"(x))
#define DQS_STEP(i, x0, x1, x2)                                                          \
  if (NX) {                                                                             \
    PIN(x0);                                                                            \
    PIN(x1);                                                                            \
    PIN(x2);                                                                            \
    dqs_blend_table(c, jbx, wbx, JT, K, UNI, rpx, 2 * (i), 2 * (i) + 2, A);             \
    PIN(A[2 * (i)]);                                                                    \
    PIN(A[2 * (i) + 1]);                                                                \
  }
#define CROSS(ax, ay, az, bx, by, bz, rx, ry, rz)      \
  rx = _mm512_fmsub_ps(ay, bz, _mm512_mul_ps(az, by)); \
  ry = _mm512_fmsub_ps(az, bx, _mm512_mul_ps(ax, bz)); \
  rz = _mm512_fmsub_ps(ax, by, _mm512_mul_ps(ay, bx))
AI __mmask16 dqs_apply_x(const skc_deform_ctx* c, size_t v, const V D[8], const int HAS_N, V* o, V* m, const int NX,
                         const unsigned char* jbx, const unsigned char* wbx, const int JT, const uint32_t K,
                         const int UNI, const uint16_t* const* rpx, __m256* A) {
  const V qx = D[0], qy = D[1], qz = D[2], qw = D[3];
  V l2 = _mm512_fmadd_ps(qw, qw, _mm512_fmadd_ps(qz, qz, _mm512_fmadd_ps(qy, qy, _mm512_mul_ps(qx, qx))));
  const __mmask16 bad = out_of_range(l2, 0x0da24262u, 0x7f61b1e6u); /* (1e-30, 3e38] like kdq_matrix */
  V s = _mm512_div_ps(_mm512_set1_ps(2.0f), l2);
  DQS_STEP(0, s, l2, l2)
  V px, py, pz, tx, ty, tz, ex, ey, ez, fx, fy, fz;
  CROSS(qx, qy, qz, D[4], D[5], D[6], tx, ty, tz);
  tx = _mm512_fmadd_ps(qw, D[4], _mm512_fnmadd_ps(D[7], qx, tx));
  ty = _mm512_fmadd_ps(qw, D[5], _mm512_fnmadd_ps(D[7], qy, ty));
  tz = _mm512_fmadd_ps(qw, D[6], _mm512_fnmadd_ps(D[7], qz, tz));
  DQS_STEP(1, tx, ty, tz)
  ld3(c->pin + v * 12, &px, &py, &pz);
  CROSS(qx, qy, qz, px, py, pz, ex, ey, ez);
  DQS_STEP(2, ex, ey, ez)
  CROSS(qx, qy, qz, ex, ey, ez, fx, fy, fz);
  DQS_STEP(3, fx, fy, fz)
  o[0] = _mm512_fmadd_ps(s, _mm512_add_ps(_mm512_fmadd_ps(qw, ex, fx), tx), px);
  o[1] = _mm512_fmadd_ps(s, _mm512_add_ps(_mm512_fmadd_ps(qw, ey, fy), ty), py);
  o[2] = _mm512_fmadd_ps(s, _mm512_add_ps(_mm512_fmadd_ps(qw, ez, fz), tz), pz);
  DQS_STEP(4, o[0], o[1], o[2])
  if (HAS_N) {
    V nx, ny, nz;
    ld3(c->nin + v * 12, &nx, &ny, &nz);
    CROSS(qx, qy, qz, nx, ny, nz, ex, ey, ez);
    DQS_STEP(5, ex, ey, ez)
    CROSS(qx, qy, qz, ex, ey, ez, fx, fy, fz);
    DQS_STEP(6, fx, fy, fz)
    m[0] = _mm512_fmadd_ps(s, _mm512_fmadd_ps(qw, ex, fx), nx);
    m[1] = _mm512_fmadd_ps(s, _mm512_fmadd_ps(qw, ey, fy), ny);
    m[2] = _mm512_fmadd_ps(s, _mm512_fmadd_ps(qw, ez, fz), nz);
    DQS_STEP(7, m[0], m[1], m[2])
  } else {
    DQS_STEP(5, o[0], o[1], o[2])
    DQS_STEP(6, o[0], o[1], o[2])
    DQS_STEP(7, o[0], o[1], o[2])
  }
  return bad;
}
#undef CROSS
#undef DQS_STEP
#undef PIN
AI __mmask16 dqs_apply(const skc_deform_ctx* c, size_t v, const V D[8], const int HAS_N, V* o, V* m) {
  return dqs_apply_x(c, v, D, HAS_N, o, m, 0, NULL, NULL, 1, 1, 0, NULL, NULL);
}

/* Renormalizes the normals (RENORM) and stores the block unless a lane is bad; 0 = nothing written. */
AI int finish16(const skc_deform_ctx* c, size_t v, const int HAS_N, const int RENORM, __mmask16 bad, const V o[3],
                V m[3]) {
  if (HAS_N && RENORM) { /* rsqrt14 and one Newton-Raphson step (~1e-7); |n|^2 in [FLT_MIN, 3e38] like vp_renorm */
    const V l2 = _mm512_fmadd_ps(m[2], m[2], _mm512_fmadd_ps(m[1], m[1], _mm512_mul_ps(m[0], m[0])));
    bad |= out_of_range(l2, 0x00800000u, 0x7f61b1e6u);
    V r = _mm512_rsqrt14_ps(l2);
    r = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), r),
                      _mm512_fnmadd_ps(_mm512_mul_ps(l2, r), r, _mm512_set1_ps(3.0f)));
    m[0] = _mm512_mul_ps(m[0], r);
    m[1] = _mm512_mul_ps(m[1], r);
    m[2] = _mm512_mul_ps(m[2], r);
  }
  if (bad) return 0;
  st3(c->pout + v * 12, o[0], o[1], o[2]);
  if (HAS_N) st3(c->nout + v * 12, m[0], m[1], m[2]);
  return 1;
}

/* One block of 16 vertices starting at v (LBS, or DQS computing the dots); 0 = nothing written (the caller redoes
 * it with the AVX2 kernel). */
AI int block16(const skc_deform_ctx* c, size_t v, const int JT, const uint32_t K, const int HAS_N, const int DQS,
               const int RENORM, __m512i lim) {
  const unsigned char* jb = c->joints + v * K * (size_t)JT;
  const unsigned char* wb = c->weights + v * K * 4;
  __m512i jv[8];
  if (!load_joints(jb, JT, K, lim, jv)) return 0;
  V o[3], m[3] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
  __mmask16 bad;
  if (!DQS) {
    V r[SW], px, py, pz;
    lbs_blend(c, jb, wb, JT, K, r);
    bad = out_of_range(r[15], 0x00800000u, 0x7f61b1e6u);
    ld3(c->pin + v * 12, &px, &py, &pz);
    o[0] = _mm512_fmadd_ps(r[8], pz, _mm512_fmadd_ps(r[4], py, _mm512_fmadd_ps(r[0], px, r[12])));
    o[1] = _mm512_fmadd_ps(r[9], pz, _mm512_fmadd_ps(r[5], py, _mm512_fmadd_ps(r[1], px, r[13])));
    o[2] = _mm512_fmadd_ps(r[10], pz, _mm512_fmadd_ps(r[6], py, _mm512_fmadd_ps(r[2], px, r[14])));
    if (HAS_N) {
      V nx, ny, nz;
      ld3(c->nin + v * 12, &nx, &ny, &nz);
      m[0] = _mm512_fmadd_ps(r[8], nz, _mm512_fmadd_ps(r[4], ny, _mm512_mul_ps(r[0], nx)));
      m[1] = _mm512_fmadd_ps(r[9], nz, _mm512_fmadd_ps(r[5], ny, _mm512_mul_ps(r[1], nx)));
      m[2] = _mm512_fmadd_ps(r[10], nz, _mm512_fmadd_ps(r[6], ny, _mm512_mul_ps(r[2], nx)));
    }
  } else {
    V D[8];
    bad = dqs_blend_dots(c, wb, K, jv, D);
    bad |= dqs_apply(c, v, D, HAS_N, o, m);
  }
  return finish16(c, v, HAS_N, RENORM, bad, o, m);
}

/* Software prefetch of the block PF_BLOCKS ahead of v in the input streams the transform reads (positions, normals,
 * COR's centres), and of the joints and weights 8 blocks ahead. On the AMD EPYC Zen 5 host the hardware prefetcher
 * did not keep the DQS and COR loops fed: their position loads were the hottest instructions (perf annotate), and
 * with this DQS went from 224-239 to 264-278 M vertices/s, COR from 180-186 to 205-221, LBS from 320-331 to 336-359
 * (bench_deform --headline, docs/deform.md session 31). On Zen 4 the weight loads of COR's first stage (two blocks
 * ahead) then were (26 % of the posed loop's samples): with the joints and weights prefetched COR went from 220 to
 * 253 M vertices/s and LBS from 378 to 394 (medians of 8 alternated runs, session 50). */
#define PF_BLOCKS 4
AI void prefetch_streams(const skc_deform_ctx* c, size_t v, size_t e, const int HAS_N, const int COR, const int JT) {
  const size_t pf = v + PF_BLOCKS * SW;
  if (pf + SW > e) return;
  const char* pp = (const char*)c->pin + pf * 12;
  _mm_prefetch(pp, _MM_HINT_T0);
  _mm_prefetch(pp + 64, _MM_HINT_T0);
  _mm_prefetch(pp + 128, _MM_HINT_T0);
  if (HAS_N) {
    const char* np = (const char*)c->nin + pf * 12;
    _mm_prefetch(np, _MM_HINT_T0);
    _mm_prefetch(np + 64, _MM_HINT_T0);
    _mm_prefetch(np + 128, _MM_HINT_T0);
  }
  if (COR) {
    const char* cp = (const char*)c->cin + pf * 12;
    _mm_prefetch(cp, _MM_HINT_T0);
    _mm_prefetch(cp + 64, _MM_HINT_T0);
    _mm_prefetch(cp + 128, _MM_HINT_T0);
  }
  const size_t pw = v + 8 * SW; /* joints and weights: further ahead than the pipelined loops' first stage */
  if (pw + SW <= e) {
    const char* wp = (const char*)c->weights + pw * c->k * 4;
    for (uint32_t l = 0; l < c->k; ++l) _mm_prefetch(wp + 64 * l, _MM_HINT_T0);
    const char* jp = (const char*)c->joints + pw * c->k * (size_t)JT;
    for (uint32_t l = 0; l < (c->k * (uint32_t)JT + 3) / 4; ++l) _mm_prefetch(jp + 64 * l, _MM_HINT_T0);
  }
}

/* DQS with the table over the blocks of [v, e), software-pipelined: stage 1 (pivot rows) runs two blocks ahead,
 * and the blend of block n + 1 is interleaved with the transform of block n (one block's dependency chain is
 * longer than the core's reorder window; this way the load-bound blend and the arithmetic-bound transform
 * overlap). A block with a joint out of range is blended from a dummy block (nothing out of bounds is read) and
 * redone by the AVX2 kernel. UNI (uniform signs, dq_uni): stage 1 only checks, and each influence reads its joint's
 * signed record (rows unused). Returns the count of bad vertices; *vend = the first vertex not covered. */
AI size_t run16_tab(const skc_deform_ctx* c, size_t v, size_t e, const int JT, const uint32_t K, const int HAS_N,
                    const int RENORM, const int UNI, __m512i lim, size_t* vend) {
  static const unsigned char zero[SW * 8 * 4] = {0};
  const size_t nb = (e - v) / SW;
  size_t bad = 0, kept = 0;
  _Alignas(64) const uint16_t* rows[4][SW];
  __mmask16 wbad[4] = {0, 0, 0, 0};
  int jok[4] = {0, 0, 0, 0};
  __m256 A[SW];
  V Dn[8]; /* the next block's blends, carried in registers */
  if (nb == 0) {
    *vend = v;
    return 0;
  }
  const uint16_t* safe[SW]; /* the rows of the dummy block after the last one */
  _Pragma("GCC unroll 16")
  for (int i = 0; i < SW; ++i) safe[i] = c->dq_sel;
  for (size_t n = 0; n < nb && n < 2; ++n) jok[n] = dqs_pivot_rows(c, v + n * SW, JT, K, UNI, lim, rows[n], &wbad[n]);
  {
    const unsigned char* jb = jok[0] ? c->joints + v * K * (size_t)JT : zero;
    const unsigned char* wb = jok[0] ? c->weights + v * K * 4 : zero;
    dqs_blend_table(c, jb, wb, JT, K, UNI, rows[0], 0, SW, A);
    dqs_blend_soa(A, Dn);
  }
  for (size_t n = 0; n < nb; ++n) {
    const size_t vn = v + n * SW;
    if (n + 2 < nb) {
      const size_t r = (n + 2) & 3;
      jok[r] = dqs_pivot_rows(c, vn + 2 * SW, JT, K, UNI, lim, rows[r], &wbad[r]);
    }
    prefetch_streams(c, vn, e, HAS_N, 0, JT);
    const int nx = n + 1 < nb && jok[(n + 1) & 3];
    const unsigned char* jbx = nx ? c->joints + (vn + SW) * K * (size_t)JT : zero;
    const unsigned char* wbx = nx ? c->weights + (vn + SW) * K * 4 : zero;
    const uint16_t* const* rpx = nx ? rows[(n + 1) & 3] : safe;
    LAUNDER(rpx);
    V D[8], o[3], m[3] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    _Pragma("GCC unroll 8")
    for (int q = 0; q < 8; ++q) D[q] = Dn[q];
    const __mmask16 b = wbad[n & 3] | dqs_apply_x(c, vn, D, HAS_N, o, m, 1, jbx, wbx, JT, K, UNI, rpx, A);
    dqs_blend_soa(A, Dn);
    if (!jok[n & 3] || !finish16(c, vn, HAS_N, RENORM, b, o, m))
      bad += skc_deform_kernel_avx2(c, vn, vn + SW);
    else
      kept += SW;
  }
  /* uniform signs: the blocks blended here (the AVX2 kernel notes those it redoes, and the tail) */
  if (UNI) skc_deform_path_note(SKC_DEFORM_PATH_UNIFORM_SIGNS, kept);
  *vend = v + nb * SW;
  return bad;
}

AI size_t run16(const skc_deform_ctx* c, size_t b, size_t e, const int JT, const uint32_t K, const int HAS_N,
                const int DQS, const int TAB, const int RENORM) {
  const __m512i lim = _mm512_set1_epi32((int)(c->jcount - 1));
  size_t bad = 0, v = b;
  if (TAB) {
    bad += run16_tab(c, v, e, JT, K, HAS_N, RENORM, TAB == 2, lim, &v);
  } else {
    for (; v + SW <= e; v += SW) {
      prefetch_streams(c, v, e, HAS_N, 0, JT);
      if (!block16(c, v, JT, K, HAS_N, DQS, RENORM, lim)) bad += skc_deform_kernel_avx2(c, v, v + SW);
    }
  }
  if (v < e) bad += skc_deform_kernel_avx2(c, v, e);
  return bad;
}

/* ---- COR: per vertex the blend of its K records (rows 0..2 of M_j, then q_j with the sign the hemisphere test
 * picks; deform.c cor_records) in one zmm, one load + one FMA per influence as LBS blends its matrices, a 16 x 16
 * transpose, then p' = R(q) (p - c) + M c and n' = R(q) n for 16 vertices at once. The record of each influence:
 * COR_K1 (K = 1) joint j's + record; COR_UNI the consistently signed record of c->dq_uni (no pivot); COR_TAB the
 * pivot's row of the hemisphere table c->dq_sel; COR_BITS (at most 64 joints) the offset resolved two blocks ahead
 * from the same tests as bits (cor_bit_offsets). A job with none of them (K >= 2, signs from per-vertex dots) stays
 * on the AVX2 path. */
enum { COR_K1 = 0, COR_UNI = 1, COR_TAB = 2, COR_BITS = 3 };

/* COR_BITS (c->cor_bits, at most 64 joints): the record offset of each influence of the block, of[16 k + i] for
 * vertex i's k-th influence = 128 j + 64 (j's record around the pivot p is the negated one), from the pivot's two
 * 32-bit rows of sign bits looked up in registers (two-source permutes over the 64 rows) and variable shifts by
 * j: no memory access that depends on a joint. The blend then reads an offset and a record per influence, as the
 * uniform-sign blend reads a joint and a record, where the table took the pivot's row pointer, the joint, the
 * row's entry and the record (a load that depends on a load, per influence). The tests and records are the
 * table's (deform.c builds the bits from its entries), so results are the table path's bit for bit. */
AI void cor_bit_offsets(const skc_deform_ctx* c, const uint32_t K, const __m512i* jk, __m512i pj, uint32_t* of) {
  const __m512i* T = (const __m512i*)(const void*)c->cor_bits;
  const __mmask16 up = _mm512_test_epi32_mask(pj, _mm512_set1_epi32(32));
  const __m512i lo =
      _mm512_mask_blend_epi32(up, _mm512_permutex2var_epi32(T[0], pj, T[1]), _mm512_permutex2var_epi32(T[2], pj, T[3]));
  const __m512i hi =
      _mm512_mask_blend_epi32(up, _mm512_permutex2var_epi32(T[4], pj, T[5]), _mm512_permutex2var_epi32(T[6], pj, T[7]));
  /* a shift by 32 or more gives 0: bit j of lo, or bit j - 32 of hi */
  _Pragma("GCC unroll 8") for (uint32_t k = 0; k < K; ++k) {
    const __m512i b = _mm512_or_si512(_mm512_srlv_epi32(lo, jk[k]),
                                      _mm512_srlv_epi32(hi, _mm512_sub_epi32(jk[k], _mm512_set1_epi32(32))));
    const __m512i o = _mm512_slli_epi32(jk[k], 7);
    const __mmask16 neg = _mm512_test_epi32_mask(b, _mm512_set1_epi32(1));
    _mm512_store_si512((void*)(of + SW * k), _mm512_mask_or_epi32(o, neg, o, _mm512_set1_epi32(64)));
  }
}

/* Stage 1 of a block: joints in range (0: the rows are a safe dummy and the block goes to the AVX2 kernel), the
 * lanes whose weight sum is 0 or not finite (the generic loop keeps such a vertex as it is), and with the table the
 * row of each lane's pivot joint. Without the table the sums are only added up when some weight of the block has
 * its sign bit set: with none negative, a sum that is 0, below FLT_MIN, past 3e38 or NaN makes the blended
 * rotation's |q|^2 out of range (cor_apply_x), which sends the lane to the AVX2 kernel as well; the per-block
 * transpose of the weights was ~8 % of a posed COR job. */
AI int cor_prep(const skc_deform_ctx* c, size_t v, const int JT, const uint32_t K, const int SIGN, __m512i lim,
                const uint16_t* rows[SW], uint32_t* of, __mmask16* wbad) {
  if (SIGN == COR_TAB) return dqs_pivot_rows(c, v, JT, K, 0, lim, rows, wbad);
  __m512i jv[8], jk[8], kp, pj;
  V wk[8], wmax;
  if (!load_joints(c->joints + v * K * (size_t)JT, JT, K, lim, jv)) return 0;
  const unsigned char* wb = c->weights + v * K * 4;
  if (SIGN == COR_BITS) {
    *wbad = dqs_soa_pivot(wb, K, jv, wk, jk, &wmax, &kp, &pj);
    cor_bit_offsets(c, K, jk, pj, of);
    return 1;
  }
  __m512i sign = _mm512_setzero_si512();
  _Pragma("GCC unroll 8") for (uint32_t o = 0; o < K; ++o) sign =
      _mm512_or_si512(sign, _mm512_loadu_si512((const void*)(wb + 64 * o)));
  *wbad = _mm512_cmplt_epi32_mask(sign, _mm512_setzero_si512()) ? dqs_soa_pivot(wb, K, jv, wk, jk, &wmax, &kp, &pj) : 0;
  return 1;
}

/* m[i] = vertex i's blended record (16 floats: rows 0..2 of M, then q) for vertices [i0, i1) of the block with
 * joints jb, weights wb and (COR_TAB) pivot rows rp or (COR_BITS) record offsets of */
AI void cor_blend_rows(const skc_deform_ctx* c, const unsigned char* jb, const unsigned char* wb, const int JT,
                       const uint32_t K, const int SIGN, const uint16_t* const* rp, const uint32_t* of,
                       const uint32_t i0, const uint32_t i1, V* m) {
  const unsigned char* base = (const unsigned char*)(SIGN == COR_UNI ? c->dq_uni : c->cor_pm);
  _Pragma("GCC unroll 16")
  for (uint32_t i = i0; i < i1; ++i) {
    const unsigned char* w = wb + 4 * K * i;
    const unsigned char* jr = jb + (size_t)K * (size_t)JT * i;
    const uint16_t* tr = SIGN == COR_TAB ? rp[i] : NULL;
    V M = _mm512_setzero_ps();
    _Pragma("GCC unroll 8")
    for (uint32_t k = 0; k < K; ++k) {
      const size_t o = SIGN == COR_BITS  ? of[SW * k + i]
                       : SIGN == COR_TAB ? tr[ldj(jr, k, JT)]
                       : SIGN == COR_UNI ? 64 * (size_t)ldj(jr, k, JT)
                                         : 128 * (size_t)ldj(jr, k, JT);
      const V rec = _mm512_load_ps((const float*)(const void*)(base + o));
      M = k == 0 ? _mm512_mul_ps(_mm512_set1_ps(ldf(w)), rec) : _mm512_fmadd_ps(_mm512_set1_ps(ldf(w + 4 * k)), rec, M);
    }
    m[i] = M;
  }
}

/* x + s (w (v x x) + v x (v x x)) for the quaternions q = (v, w) of the 16 lanes, s = 2 / |q|^2: x rotated */
AI void cor_rotate(const V* q, V s, V x, V y, V z, V* o) {
  const V ex = _mm512_fmsub_ps(q[1], z, _mm512_mul_ps(q[2], y));
  const V ey = _mm512_fmsub_ps(q[2], x, _mm512_mul_ps(q[0], z));
  const V ez = _mm512_fmsub_ps(q[0], y, _mm512_mul_ps(q[1], x));
  const V fx = _mm512_fmsub_ps(q[1], ez, _mm512_mul_ps(q[2], ey));
  const V fy = _mm512_fmsub_ps(q[2], ex, _mm512_mul_ps(q[0], ez));
  const V fz = _mm512_fmsub_ps(q[0], ey, _mm512_mul_ps(q[1], ex));
  o[0] = _mm512_fmadd_ps(s, _mm512_fmadd_ps(q[3], ex, fx), x);
  o[1] = _mm512_fmadd_ps(s, _mm512_fmadd_ps(q[3], ey, fy), y);
  o[2] = _mm512_fmadd_ps(s, _mm512_fmadd_ps(q[3], ez, fz), z);
}

/* The blended records r applied to the block at v: positions R (p - c) + M c, normals R n (R from the blended q,
 * unnormalized: s = 2 / |q|^2). Returns the lanes whose |q|^2 is tiny or not finite (the AVX2 COR path's range).
 * NX: the next block's blend (joints jbx, weights wbx, pivot rows rpx) into mx, two vertices at each of eight
 * points of this transform, pinned there by empty asm statements, as run16_tab interleaves DQS: one block's work
 * is more than the out-of-order window holds, and the compiler would emit the load-bound blend and the
 * arithmetic-bound transform one after the other. */
#define PIN(x) __asm__ volatile("" : "+v"(x))
#define COR_STEP(i, x0, x1, x2)                                                   \
  if (NX) {                                                                       \
    PIN(x0);                                                                      \
    PIN(x1);                                                                      \
    PIN(x2);                                                                      \
    cor_blend_rows(c, jbx, wbx, JT, K, SIGN, rpx, ofx, 2 * (i), 2 * (i) + 2, mx); \
    PIN(mx[2 * (i)]);                                                             \
    PIN(mx[2 * (i) + 1]);                                                         \
  }
AI __mmask16 cor_apply_x(const skc_deform_ctx* c, size_t v, const V r[SW], const int HAS_N, V* o, V* m, const int NX,
                         const unsigned char* jbx, const unsigned char* wbx, const int JT, const uint32_t K,
                         const int SIGN, const uint16_t* const* rpx, const uint32_t* ofx, V* mx) {
  const V* q = r + 12;
  V l2 = _mm512_fmadd_ps(q[3], q[3], _mm512_fmadd_ps(q[2], q[2], _mm512_fmadd_ps(q[1], q[1], _mm512_mul_ps(q[0], q[0]))));
  const __mmask16 bad = out_of_range(l2, 0x0da24262u, 0x7e7fffffu);
  V s = _mm512_div_ps(_mm512_set1_ps(2.0f), l2);
  COR_STEP(0, s, l2, l2)
  V px, py, pz, cx, cy, cz;
  if (HAS_N) {
    V nx, ny, nz;
    ld3(c->nin + v * 12, &nx, &ny, &nz);
    COR_STEP(1, nx, ny, nz)
    cor_rotate(q, s, nx, ny, nz, m);
    COR_STEP(2, m[0], m[1], m[2])
  }
  ld3(c->pin + v * 12, &px, &py, &pz);
  ld3(c->cin + v * 12, &cx, &cy, &cz);
  COR_STEP(3, px, cx, cz)
  px = _mm512_sub_ps(px, cx);
  py = _mm512_sub_ps(py, cy);
  pz = _mm512_sub_ps(pz, cz);
  COR_STEP(4, px, py, pz)
  cor_rotate(q, s, px, py, pz, o);
  COR_STEP(5, o[0], o[1], o[2])
  if (!HAS_N) {
    COR_STEP(1, o[0], o[1], o[2])
    COR_STEP(2, o[0], o[1], o[2])
  }
  _Pragma("GCC unroll 3")
  for (int i = 0; i < 3; ++i) /* + row i of M times c */
    o[i] = _mm512_add_ps(o[i], _mm512_fmadd_ps(r[4 * i + 2], cz,
                                               _mm512_fmadd_ps(r[4 * i + 1], cy, _mm512_fmadd_ps(r[4 * i], cx, r[4 * i + 3]))));
  COR_STEP(6, o[0], o[1], o[2])
  COR_STEP(7, o[0], o[1], o[2])
  return bad;
}
#undef COR_STEP
#undef PIN

/* COR over the blocks of [v, e), software-pipelined as run16_tab: stage 1 (cor_prep) two blocks ahead, and the
 * blend of block n + 1 interleaved with the transform of block n (cor_apply_x). A block with a joint out of range
 * is blended from a dummy block (nothing out of bounds is read) and redone by the AVX2 kernel, as is a block whose
 * math fails. Returns the count of bad vertices; *vend = the first vertex not covered. */
AI size_t run16_cor(const skc_deform_ctx* c, size_t v, size_t e, const int JT, const uint32_t K, const int HAS_N,
                    const int RENORM, const int SIGN, size_t* vend) {
  static const unsigned char zero[SW * 8 * 4] = {0};
  const __m512i lim = _mm512_set1_epi32((int)(c->jcount - 1));
  const size_t nb = (e - v) / SW;
  _Alignas(64) const uint16_t* rows[4][SW];
  _Alignas(64) uint32_t offs[4][8 * SW];    /* COR_BITS: the record offsets of the block */
  static const uint32_t zoff[8 * SW] = {0}; /* the dummy block's: joint 0's record */
  const uint16_t* safe[SW]; /* rows of the dummy block (any row holds offsets of real records) */
  __mmask16 wbad[4] = {0, 0, 0, 0};
  int ok[4] = {0, 0, 0, 0};
  size_t bad = 0, kept = 0;
  V mn[SW]; /* the next block's blends */
  *vend = v + nb * SW;
  if (nb == 0) return 0;
  _Pragma("GCC unroll 16")
  for (int i = 0; i < SW; ++i) safe[i] = c->dq_sel;
  for (size_t n = 0; n < nb && n < 2; ++n)
    ok[n] = cor_prep(c, v + n * SW, JT, K, SIGN, lim, rows[n], offs[n], &wbad[n]);
  {
    const uint16_t* const* rp = ok[0] ? (const uint16_t* const*)rows[0] : safe;
    cor_blend_rows(c, ok[0] ? c->joints + v * K * (size_t)JT : zero, ok[0] ? c->weights + v * K * 4 : zero, JT, K, SIGN,
                   rp, ok[0] ? offs[0] : zoff, 0, SW, mn);
  }
  for (size_t n = 0; n < nb; ++n) {
    const size_t vn = v + n * SW;
    prefetch_streams(c, vn, e, HAS_N, 1, JT);
    if (n + 2 < nb) {
      const size_t r = (n + 2) & 3;
      ok[r] = cor_prep(c, vn + 2 * SW, JT, K, SIGN, lim, rows[r], offs[r], &wbad[r]);
    }
    const int nx = n + 1 < nb && ok[(n + 1) & 3];
    const unsigned char* jbx = nx ? c->joints + (vn + SW) * K * (size_t)JT : zero;
    const unsigned char* wbx = nx ? c->weights + (vn + SW) * K * 4 : zero;
    const uint16_t* const* rpx = nx ? (const uint16_t* const*)rows[(n + 1) & 3] : safe;
    const uint32_t* ofx = nx ? offs[(n + 1) & 3] : zoff;
    LAUNDER(rpx);
    LAUNDER(ofx);
    V r[SW], o[3], m[3] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    transpose16(mn, r);
    const __mmask16 b = wbad[n & 3] | cor_apply_x(c, vn, r, HAS_N, o, m, 1, jbx, wbx, JT, K, SIGN, rpx, ofx, mn);
    if (!ok[n & 3] || !finish16(c, vn, HAS_N, RENORM, b, o, m))
      bad += skc_deform_kernel_avx2(c, vn, vn + SW);
    else
      kept += SW;
  }
  /* the blocks blended from the sign bits' offsets (the AVX2 kernel notes those it redoes, and the tail) */
  if (SIGN == COR_BITS) skc_deform_path_note(SKC_DEFORM_PATH_SIGN_BITS, kept);
  return bad;
}

AI size_t run16c(const skc_deform_ctx* c, size_t b, size_t e, const int JT, const uint32_t K, const int HAS_N,
                 const int RENORM, const int SIGN) {
  size_t v = b, bad = run16_cor(c, b, e, JT, K, HAS_N, RENORM, SIGN, &v);
  if (v < e) bad += skc_deform_kernel_avx2(c, v, e);
  return bad;
}

/* SIGN COR_K1 is the K = 1 function, the others take K = 2, 4 or 8 (C16_FN returns 0 for any other pairing:
 * the AVX2 path; the unreachable cases are folded to 0 so they instantiate nothing) */
#define C16_K(JT, HN, RN, SIGN)                                                                  \
  switch (c->k) {                                                                                \
    case 1: *bad = SIGN == COR_K1 ? run16c(c, b, e, JT, 1, HN, RN, COR_K1) : 0; return 1;      \
    case 2: *bad = SIGN != COR_K1 ? run16c(c, b, e, JT, 2, HN, RN, SIGN) : 0; return 1;        \
    case 4: *bad = SIGN != COR_K1 ? run16c(c, b, e, JT, 4, HN, RN, SIGN) : 0; return 1;        \
    case 8: *bad = SIGN != COR_K1 ? run16c(c, b, e, JT, 8, HN, RN, SIGN) : 0; return 1;        \
    default: return 0;                                                                           \
  }
/* one function per joint type and sign mode, as R16_FN (the frames of an unoptimized build stay small) */
#define C16_FN(NAME, JT, SIGN)                                                                        \
  static __attribute__((noinline)) int NAME(const skc_deform_ctx* c, size_t b, size_t e, size_t* bad) { \
    if ((SIGN == COR_K1) != (c->k == 1)) return 0;                                                      \
    if (!c->has_n) C16_K(JT, 0, 0, SIGN)                                                                \
    if ((c->flags & SKC_DEFORM_NO_RENORMALIZE) == 0) C16_K(JT, 1, 1, SIGN)                              \
    C16_K(JT, 1, 0, SIGN)                                                                               \
  }
C16_FN(wide_cor_k1_u8, 1, COR_K1)
C16_FN(wide_cor_k1_u16, 2, COR_K1)
C16_FN(wide_cor_uni_u8, 1, COR_UNI)
C16_FN(wide_cor_uni_u16, 2, COR_UNI)
C16_FN(wide_cor_tab_u8, 1, COR_TAB)
C16_FN(wide_cor_tab_u16, 2, COR_TAB)
C16_FN(wide_cor_bits_u8, 1, COR_BITS)
C16_FN(wide_cor_bits_u16, 2, COR_BITS)
#undef C16_K
#undef C16_FN

/* DQ: 0 = LBS, 1 = DQS computing the hemisphere dots, 2 = DQS with the table (K >= 2), 3 = DQS with uniform signs
 * (K >= 2); run16's TAB: 1 = the table, 2 = uniform signs */
#define R16_TAB(DQ) ((DQ) == 2 ? 1 : (DQ) == 3 ? 2 : 0)
#define R16_K(JT, HN, DQ, RN)                                                          \
  switch (c->k) {                                                                      \
    case 1: *bad = run16(c, b, e, JT, 1, HN, DQ != 0, 0, RN); return 1;               \
    case 2: *bad = run16(c, b, e, JT, 2, HN, DQ != 0, R16_TAB(DQ), RN); return 1;     \
    case 4: *bad = run16(c, b, e, JT, 4, HN, DQ != 0, R16_TAB(DQ), RN); return 1;     \
    case 8: *bad = run16(c, b, e, JT, 8, HN, DQ != 0, R16_TAB(DQ), RN); return 1;     \
    default: return 0;                                                                 \
  }
/* one function per joint type and method: an unoptimized (sanitizer) build gives every inlined variant its own
 * locals, and all variants in one frame would not fit the default stack together with the AVX2 kernel's */
#define R16_FN(NAME, JT, DQ)                                                                          \
  static __attribute__((noinline)) int NAME(const skc_deform_ctx* c, size_t b, size_t e, size_t* bad) { \
    if (!c->has_n) R16_K(JT, 0, DQ, 0)                                                                  \
    if ((c->flags & SKC_DEFORM_NO_RENORMALIZE) == 0) R16_K(JT, 1, DQ, 1)                                \
    R16_K(JT, 1, DQ, 0)                                                                                 \
  }
R16_FN(wide_lbs_u8, 1, 0)
R16_FN(wide_lbs_u16, 2, 0)
R16_FN(wide_dqs_u8, 1, 1)
R16_FN(wide_dqs_u16, 2, 1)
R16_FN(wide_dqs_table_u8, 1, 2)
R16_FN(wide_dqs_table_u16, 2, 2)
R16_FN(wide_dqs_uni_u8, 1, 3)
R16_FN(wide_dqs_uni_u16, 2, 3)
#undef R16_K
#undef R16_TAB
#undef R16_FN

static int wide(const skc_deform_ctx* c, size_t b, size_t e, size_t* bad) {
  const int jt = (int)(c->fmt >> 3), wt = (int)(c->fmt & 7);
  if (c->generic || c->fmt == 0 || (jt != 1 && jt != 2) || wt != 4 || c->has_t) return 0;
  if ((c->flags & ~(uint32_t)SKC_DEFORM_NO_RENORMALIZE) != 0) return 0;
  const int dqs = c->method == SKC_DEFORM_DQS, cor = c->method == SKC_DEFORM_COR;
  if (!(c->method == SKC_DEFORM_LBS || ((dqs || cor) && !c->dqs_scaled))) return 0;
  if (c->jstride != (size_t)c->k * (size_t)jt || c->wstride != (size_t)c->k * 4 || c->pis != 12 || c->pos != 12 ||
      (c->has_n && (c->nis != 12 || c->nos != 12 || c->nonrigid)))
    return 0;
  if (cor) { /* records built (deform.c wide_tables), and a way to sign them without per-vertex dots */
    if (c->cis != 12 || !c->cor_pm) return 0;
    if (c->k == 1) return jt == 1 ? wide_cor_k1_u8(c, b, e, bad) : wide_cor_k1_u16(c, b, e, bad);
    if (c->dq_uni) return jt == 1 ? wide_cor_uni_u8(c, b, e, bad) : wide_cor_uni_u16(c, b, e, bad);
    if (c->cor_bits) return jt == 1 ? wide_cor_bits_u8(c, b, e, bad) : wide_cor_bits_u16(c, b, e, bad);
    if (c->dq_sel) return jt == 1 ? wide_cor_tab_u8(c, b, e, bad) : wide_cor_tab_u16(c, b, e, bad);
    return 0;
  }
  if (!dqs) return jt == 1 ? wide_lbs_u8(c, b, e, bad) : wide_lbs_u16(c, b, e, bad);
  if (c->k >= 2 && c->dq_uni) return jt == 1 ? wide_dqs_uni_u8(c, b, e, bad) : wide_dqs_uni_u16(c, b, e, bad);
  if (c->dq_sel) return jt == 1 ? wide_dqs_table_u8(c, b, e, bad) : wide_dqs_table_u16(c, b, e, bad);
  return jt == 1 ? wide_dqs_u8(c, b, e, bad) : wide_dqs_u16(c, b, e, bad);
}

size_t skc_deform_kernel_avx512(const skc_deform_ctx* c, size_t begin, size_t end) {
  size_t bad = 0;
  if (wide(c, begin, end, &bad)) {
    skc_deform_path_note(SKC_DEFORM_PATH_WIDE16, end - begin);
    return bad;
  }
  return skc_deform_kernel_avx2(c, begin, end);
}
int skc_deform_kernel_avx512_available(void) { return 1; }

#else
size_t skc_deform_kernel_avx512(const skc_deform_ctx* c, size_t begin, size_t end) {
  return skc_deform_kernel_avx2(c, begin, end);
}
int skc_deform_kernel_avx512_available(void) { return 0; }
#endif
