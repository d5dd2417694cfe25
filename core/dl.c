/* dl.c - libraries loaded on first use (see skc_dl.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "skc_dl.h"

void* skc_dl_open(const char* env, const char* soname, const char* what, const char** file, char* why, size_t cap) {
  const char* f = getenv(env);
  if (!f || !f[0]) f = soname;
  *file = f;
  void* lib = dlopen(f, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    snprintf(why, cap, "%s (%s) could not be loaded: %s", what, f, e ? e : "?");
  }
  return lib;
}

int skc_dl_resolve(void* lib, const char* const* names, void** slots, size_t count, const char* what, const char* file,
                   char* why, size_t cap) {
  for (size_t i = 0; i < count; ++i)
    if (!(slots[i] = dlsym(lib, names[i]))) {
      snprintf(why, cap, "%s (%s) has no %s: not the version the library was built with", what, file, names[i]);
      return 0;
    }
  return 1;
}
