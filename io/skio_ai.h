/* skio_ai.h - Assimp, loaded on first use (ai_lazy.c). */
#ifndef SKIO_AI_H
#define SKIO_AI_H

/* Loads Assimp once per process (later calls only look); NULL when its functions are there, else why not. */
const char* skio_ai_unavailable(void);

#endif
