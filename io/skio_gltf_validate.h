/* skio_gltf_validate.h - skin checks on a glTF file's own JOINTS_n / WEIGHTS_n values (gltf_validate.c), for what
 * a scene cannot show: the native reader drops weight-0 padding and entries whose joint index is past the skin's
 * joints, and Assimp drops or repairs more. Used by skio_mesh_validate when the scene came from skinkit's glTF
 * reader (skio_scene.gltf set).
 *
 * Rules, per vertex of one skinned primitive (all its sets together), as the Khronos glTF-Validator (2.0.0-dev.3.10,
 * InfluencesChecker) and the specification (3.7.3.3, skinned mesh attributes) have them:
 *   bad_joint   a joint index >= the skin's joint count, whatever its weight (ACCESSOR_JOINTS_INDEX_OOB);
 *               such an entry counts for nothing else
 *   nan         a NaN or infinite weight (ACCESSOR_INVALID_FLOAT); the vertex's sum is then not judged
 *   negative    a negative weight (ACCESSOR_WEIGHTS_NEGATIVE)
 *   duplicate   a joint named twice with non-zero weights (ACCESSOR_JOINTS_INDEX_DUPLICATE); zero-weight padding
 *               repeating joint 0 is not a duplicate
 *   unweighted  no non-zero weight on a joint of the skin (the validator reports the sum 0 as non-normalized)
 *   off_tolerance  the sum of the positive weights of distinct in-range joints is off 1 (ACCESSOR_WEIGHTS_NON_
 *               NORMALIZED): float weights by more than max(tolerance, 2e-7 per summed weight, the validator's own
 *               float32 slack), so a tolerance of 1e-7 or less is the validator's rule; unsigned normalized byte /
 *               short weights when their integer sum is not exactly 255 / 65535 (the specification's MUST),
 *               whatever the tolerance
 *   over_limit  more non-zero weights than max_influences (0: no limit)
 * Influence counts (histogram, max_influences, influence_count) count non-zero weights, NaN included. joints_used
 * counts skin joints with a finite non-zero weight somewhere. Weight sums (min, max) are those judged above.
 */
#ifndef SKIO_GLTF_VALIDATE_H
#define SKIO_GLTF_VALIDATE_H

#include <stdbool.h>
#include <stdint.h>

#include "skc_skin.h"
#include "skc_status.h"

struct skio_gltf_doc;

/* Fills r (cleared first) from primitive `primitive` of the mesh of node `node`, checked against the node's skin.
 * tolerance <= 0 means 1e-3. kept (optional) is the scene's skin read from this primitive, with joint_node
 * (kept->joint_count entries: skeleton joint -> glTF node): when it no longer holds exactly what the reader keeps
 * from these values (every non-zero weight on a joint of the skin, in file order, bit for bit), the skin was edited
 * after loading and the file's values are stale. *checked = false (r zeroed, SKC_OK) then, and when the node has
 * no skin, no mesh, no such primitive or no JOINTS_0, or when vertex_count differs from the accessors' count: the
 * caller then checks the scene's skin instead. Accessors are read as skio_gltf_accessor_floats / _uints read them
 * (sparse, meshopt; one without data is all zeros, as the specification says). Errors: SKC_FORMAT for a JOINTS_n
 * without WEIGHTS_n or accessors of the wrong type (the message names the node and primitive), SKC_UNSUPPORTED
 * for more sets than SKC_MAX_INFLUENCES_PER_VERTEX allows, SKC_OUT_OF_MEMORY. */
int skio_gltf_validate_primitive(struct skio_gltf_doc* d, uint32_t node, uint32_t primitive, size_t vertex_count,
                                 const skc_skin* kept, const int32_t* joint_node, float tolerance,
                                 uint32_t max_influences, skc_skin_report* r, bool* checked, skc_err* err);

/* The skin-structure rules of the specification (3.7.3.1, joint hierarchy) for the skin of node `node`, as the
 * Khronos glTF-Validator reports them, as SKIO_SKIN_* bits (0: none, or the node has no skin):
 *   SKIO_SKIN_NO_COMMON_ROOT    no node is an ancestor of (or one of) every joint (SKIN_NO_COMMON_ROOT)
 *   SKIO_SKIN_SKELETON_INVALID  skin.skeleton is not the joints' closest common root or one of its ancestors
 *                               (SKIN_SKELETON_INVALID; not judged without a common root)
 *   SKIO_SKIN_DUPLICATE_JOINT   skin.joints lists a node twice (DUPLICATE_ELEMENTS)
 * Parents come from the nodes' children lists (skio_gltf_node_parents); nodes that do not form a forest, which
 * the reader refuses, give 0, and a loop through the parent links ends a walk up. A joint index that is no node is
 * skipped. Allocates five arrays of node_count entries; 0 when that fails. */
enum {
  SKIO_SKIN_NO_COMMON_ROOT = 1u,
  SKIO_SKIN_SKELETON_INVALID = 2u,
  SKIO_SKIN_DUPLICATE_JOINT = 4u,
  SKIO_SKIN_INFLUENCE_FORMAT = 8u,
  SKIO_SKIN_DRACO_COUNT = 16u,
  SKIO_SKIN_JSON_UTF8 = 32u /* the document's JSON is not UTF-8 throughout (skio_gltf_doc.json_not_utf8) */
};
uint32_t skio_gltf_skin_structure(struct skio_gltf_doc* d, uint32_t node);

/* SKIO_SKIN_INFLUENCE_FORMAT when a JOINTS_n or WEIGHTS_n accessor of the primitive of node `node`'s mesh has a form
 * the specification does not allow (skio_gltf_influence_format_ok; the Khronos validator's
 * MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT), else 0 (also when the declarations do not read). */
uint32_t skio_gltf_influence_format(struct skio_gltf_doc* d, uint32_t node, uint32_t primitive);

/* SKIO_SKIN_DRACO_COUNT when an attribute of that primitive declares another count than its KHR_draco_mesh_compression
 * data decodes to (the extension requires them to match; the reader takes the decoded count: gltf_draco.c), else 0
 * (also when the declarations do not read). The Khronos validator does not decode Draco data: it cannot see this. */
uint32_t skio_gltf_draco_count_differs(struct skio_gltf_doc* d, uint32_t node, uint32_t primitive);

#endif
