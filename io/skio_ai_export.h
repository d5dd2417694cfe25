/* skio_ai_export.h - Assimp's exporters (FBX, Collada) run so that their failures cannot take the caller down.
 *
 * Assimp 5.2.5's writers recurse once per level of the node hierarchy and look every bone up from the root
 * (aiNode::FindNode, itself recursive): a 10,000-deep joint chain crashed the FBX writer (stack overflow), a
 * 17,000-deep one the Collada writer, and a 5,000-deep one took the Collada writer 48 s. So a scene deeper than
 * SKIO_AI_EXPORT_MAX_DEPTH is refused before Assimp sees it, and with isolate the export runs in a child process
 * (POSIX fork) that hands the file's bytes back through a pipe: a crash or a run past the time limit there is an
 * error naming it, and the caller's process lives on. Internal to io/. */
#ifndef SKIO_AI_EXPORT_H
#define SKIO_AI_EXPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "skc_status.h"
#include "skio_buf.h"

struct aiScene;
struct aiNode;

/* Levels of nodes below the root a scene may have for Assimp's writers (real rigs: 10-60; 1,024 levels of
 * FindNode and the writers' own recursion stay under 1 MB of stack). */
#define SKIO_AI_EXPORT_MAX_DEPTH 1024u

typedef struct skio_ai_guard {
  bool isolate;           /* export in a child process */
  double timeout_seconds; /* with isolate: give up after this long (0 = no limit) */
} skio_ai_guard;

/* True when a node lies more than limit levels below root (the root is level 0); walks at most limit + 1 levels. */
bool skio_ai_deeper_than(const struct aiNode* root, unsigned limit);
/* The same for a parent array whose parents come before their children (a skeleton): a joint more than limit
 * levels below a root. Lets a writer refuse before it builds the aiScene (a 60,000-deep chain took 4.4 s). */
bool skio_parents_deeper_than(const int32_t* parents, uint32_t count, unsigned limit);
/* SKC_UNSUPPORTED: path is not written in Assimp's format id, its hierarchy being too deep for that writer. */
int skio_ai_too_deep(const char* path, const char* id, skc_err* err);

/* Assimp's export of sc in format id ("fbx", "fbxa", "collada") into out (appended; out->oom on allocation
 * failure), guarded as above (guard NULL: in this process). path only names the file in errors. SKC_UNSUPPORTED for
 * a scene too deep, SKC_IO when Assimp refuses or its isolated run crashes or times out, SKC_OUT_OF_MEMORY. */
int skio_ai_export(const struct aiScene* sc, const char* id, const char* path, const skio_ai_guard* guard,
                   skio_buf* out, skc_err* err);

/* "SIGSEGV", "SIGABRT", ... for the signals a crashed child may show; "signal" for others. */
const char* skio_signal_name(int sig);

#endif
