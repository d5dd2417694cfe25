/* sk_testutil.h - shared helpers for the Check unit tests and the benchmarks. */
#ifndef SK_TESTUTIL_H
#define SK_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

struct sk_skeleton;

/* SANITIZED: 1 in an AddressSanitizer build (gcc or clang), where tests skip what ASan cannot run under
 * (address-space limits) or what takes too long there. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* Corpus root from $SKINKIT_ASSETS, or NULL (and one "skipped" line on stderr, printed once) when unset.
 * When it is set but not a directory, returns NULL after printing an error; callers then fail. */
const char* skt_assets_dir(void);
/* True if SKINKIT_ASSETS is set (so corpus tests must run and must not be skipped). */
int skt_assets_required(void);
/* Joins the corpus root and a relative path into a static buffer. */
const char* skt_asset(const char* relative);
/* A one-joint skeleton, an empty scene over it, and *d set to one triangle (size, 3 vertices, positions, indices;
 * the rest zero) to add to it. Fails the running test on error. */
struct sk_scene;
struct sk_mesh_desc;
void skt_triangle_scene(struct sk_skeleton** sk, struct sk_scene** scene, struct sk_mesh_desc* d);
/* Whether joint j of skeleton ka, read from source (a path), is Assimp's implicit FBX root "RootNode" that a glTF
 * or Collada output (ext ".glb" / ".gltf" / ".dae") does not hold (session 25: the FBX file has no such node; the
 * Collada writer leaves it out when it converts an FBX's unit), or the root node Assimp makes of a Collada file's
 * <visual_scene>, which a glTF or FBX output does not hold (session 51); kb: the output's. */
int skt_implicit_fbx_root(const char* source, const char* ext, const struct sk_skeleton* ka,
                          const struct sk_skeleton* kb, uint32_t j);
/* tests/data/<name> of the source tree (found from this file's path), in one of 4 static buffers used in turn. */
const char* skt_data(const char* name);
/* A new folder /tmp/skinkit_<tag>_XXXXXX into dir (n bytes, at least 64); fails the test when it cannot. It is
 * removed when the process that made it exits (skt_tmpdir_remove_at_exit), whatever the test removes itself. */
void skt_tmpdir_make(char* dir, size_t n, const char* tag);
/* dir and what it holds are removed when this process exits normally (a forked test's folder with that test, a
 * folder made before the fork with the runner), unless SKT_KEEP_TMP=1 (to look at what a test wrote). */
void skt_tmpdir_remove_at_exit(const char* dir);
/* Removes it and what it holds (a warning on stderr when that fails). */
void skt_tmpdir_remove(const char* dir);

/* Deterministic xorshift random numbers. */
typedef struct skt_rng {
  uint64_t s;
} skt_rng;
uint32_t skt_rand_u32(skt_rng* r);
float skt_rand_float(skt_rng* r); /* [0, 1) */
float skt_rand_range(skt_rng* r, float lo, float hi);

/* The median of v[0..n) (n >= 1; sorts v), its min into *lo and max into *hi (either may be NULL): the
 * benchmarks' "median [min - max]" over rounds. */
double skt_median(double* v, int n, double* lo, double* hi);

/* Column-major rotation by angle about the X (axis 0) or Z (axis 2) axis through the point (px, 0, 0). */
void skt_rot_about(int axis, float angle, float px, float m[16]);

/* Runs `cli ARGS` through the shell from directory dir; stdout goes to out (cap bytes, NUL-terminated), stderr to
 * the file err_path. Returns the exit status, or -1 when it could not run or did not exit normally. */
int skt_run_cli(const char* dir, const char* cli, const char* args, const char* err_path, char* out, size_t cap);
/* The text of a file (at most 64 KiB: validate of tests/data with its progress bar passed 8 KiB) in a static
 * buffer; "" when it cannot be read. */
const char* skt_read_text(const char* path);


/* Standard base64 (with '=' padding) of n bytes, NUL-terminated, malloc'd (for glTF data: URIs). */
char* skt_base64(const uint8_t* data, size_t n);

/* sk_skf_encode into a malloc'd buffer of sk_skf_encode_bound's size (Check assertions on every step); the size
 * written goes to *out_size. */
struct sk_skf_encode_desc;
unsigned char* skt_skf_encode(const struct sk_skf_encode_desc* d, size_t* out_size);

/* Runs a Check suite with CK_NORMAL output; returns the process exit status. */
struct Suite;
int skt_run_suite(struct Suite* suite);

#endif
