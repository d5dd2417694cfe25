/* skio_ai.h - Assimp, loaded on first use (ai_lazy.c). */
#ifndef SKIO_AI_H
#define SKIO_AI_H

/* Loads Assimp once per process (later calls only look); NULL when its functions are there, else why not. */
const char* skio_ai_unavailable(void);

/* Assimp keeps process-wide state (its DefaultLogger, the C API's last error string, the time zone it formats dates
 * in: concurrent imports and exports raced in it), while skinkit.h lets distinct objects be used from distinct
 * threads. So the library's calls into Assimp in this process hold this one lock, from the call through reading its
 * error string: one thread in Assimp at a time. Reading the aiScene it returned needs no lock (the material queries
 * only read that scene). A child forked to run Assimp in isolation does not take it: the parent holds it across the
 * fork, so the child starts with Assimp's state at rest. Not recursive. */
void skio_ai_lock(void);
void skio_ai_unlock(void);

#endif
