/* skc_dl.h - libraries loaded on first use (core/chol_lazy.c: CHOLMOD, io/ai_lazy.c: Assimp). */
#ifndef SKC_DL_H
#define SKC_DL_H

#include <stddef.h>

/* dlopen (RTLD_NOW | RTLD_LOCAL) of the file the environment variable env names (a path or a soname), else of
 * soname; *file says which. NULL when it cannot be loaded, with why = "<what> (<file>) could not be loaded: ...". */
void* skc_dl_open(const char* env, const char* soname, const char* what, const char** file, char* why, size_t cap);

/* Fills slots[i] with symbol names[i] of lib, for i < count (slots: a struct of count function pointers, which
 * POSIX stores as data pointers). 1 when every one was found, else 0 with why naming the first missing. */
int skc_dl_resolve(void* lib, const char* const* names, void** slots, size_t count, const char* what, const char* file,
                   char* why, size_t cap);

#endif
