/* skio_md5.h - the structure of an id Tech 4 .md5mesh checked before Assimp reads it (io/md5_check.c). Internal to
 * io/.
 *
 * Assimp 5.2's MD5 reader takes what it finds: a file cut inside its joints gives a scene with bones and no mesh, one
 * cut inside a mesh gives that mesh with fewer triangles or fewer meshes than the header says, all read with success;
 * an index past its list may crash the reader. The check reads the text as the format lays it out - the header's
 * numJoints / numMeshes, a joints block, then one mesh block each with numverts / numtris / numweights and their
 * lines - and refuses a file whose blocks are unclosed, whose lines fall short of or exceed the declared counts, or
 * whose indices leave their lists, or whose joints' parents form a cycle. */
#ifndef SKIO_MD5_H
#define SKIO_MD5_H

#include <stdbool.h>
#include <stddef.h>

#include "skc_status.h"

/* Whether path ends in .md5mesh (any case). */
bool skio_path_is_md5mesh(const char* path);
/* SKC_OK when text[0..n) is a whole, consistent .md5mesh; SKC_FORMAT with the line and what is wrong in err
 * (optional) otherwise (SKC_OUT_OF_MEMORY when the joints' parents do not fit). Reads nothing outside text. */
int skio_md5mesh_check(const char* text, size_t n, skc_err* err);

#endif
