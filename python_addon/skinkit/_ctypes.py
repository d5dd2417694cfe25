"""Low-level ctypes binding of libskinkit (plugin/skinkit.h). Never imports bpy; numpy is not needed here.

Layout of this module:
  * constants mirrored from skinkit.h (result codes, enums, flags);
  * ``ctypes.Structure`` mirrors of every public struct (``new(Struct)`` fills ``size``);
  * ``FUNCTIONS``: one row per exported function, ``(name, restype, argtypes)``. ``RESULT`` as restype means
    "returns sk_result": a non-zero code raises :class:`SkinkitError` with the library's message. A trailing
    ``ERR`` argument (``sk_error*``) is supplied automatically when the caller leaves it out.
    Adding a function to the binding is one row here; tests/addon/test_ctypes.py fails when a function of
    skinkit.h has no row, when the argument count or a scalar width differs, or when a struct mirror
    disagrees with the C compiler's sizeof/offsetof.
  * library lookup (:func:`find_library`) and loading with the ABI major check (:func:`load_library`).
"""

import ctypes
import operator
import os
import sys
import threading

try:
    from . import _bundle
except ImportError:  # loaded as a plain module, outside the package
    import _bundle
from ctypes import (POINTER, Structure, byref, c_char, c_char_p, c_double, c_float, c_int32, c_size_t,
                    c_uint32, c_uint64, c_void_p, sizeof)

__all__ = ["ABI_MAJOR", "SkinkitError", "ArgumentRangeError", "check_value", "int_limits", "Library", "load_library",
           "find_library", "candidate_paths",
           "new", "FUNCTIONS", "STRUCTS", "CONSTANTS"]

# ABI major this binding was written for; a library reporting another sk_abi_major() is refused.
ABI_MAJOR = 1

# ------------------------------------------------------------------------------------------- constants
# Header values when this binding was last synchronized (the library's own are sk_version()/sk_abi_minor()).
SK_VERSION = 12702
SK_ABI_MAJOR = ABI_MAJOR
SK_ABI_MINOR = 27

SK_PROP_INT, SK_PROP_BOOL, SK_PROP_NUMBER, SK_PROP_STRING, SK_PROP_VEC3 = 1, 2, 3, 4, 5  # ABI 1.17 sk_scene_prop

SK_OK = 0
SK_ERR_INVALID_ARGUMENT = 1
SK_ERR_OUT_OF_MEMORY = 2
SK_ERR_OUT_OF_RANGE = 3
SK_ERR_BAD_HIERARCHY = 4
SK_ERR_SINGULAR_MATRIX = 5
SK_ERR_NOT_FOUND = 6
SK_ERR_IO = 7
SK_ERR_FORMAT = 8
SK_ERR_UNSUPPORTED = 9
SK_ERR_TRUNCATED = 10
SK_ERR_CHECKSUM = 11
SK_ERR_VERSION = 12
SK_ERR_NO_SKIN = 13
SK_ERR_STRUCT_SIZE = 14
SK_ERR_NO_SOLUTION = 15
SK_ERR_CANCELLED = 16
SK_ERR_EXISTS = 17
SK_ERR_INTERNAL = 18

SK_ERROR_MESSAGE_SIZE = 256
SK_MAX_JOINTS = 65535
SK_NO_PARENT = -1
SK_HISTOGRAM_BINS = 17

SK_TYPE_NONE = 0
SK_TYPE_U8 = 1
SK_TYPE_U16 = 2
SK_TYPE_U32 = 3
SK_TYPE_F32 = 4

SK_VFLAG_SUM_OFF = 1 << 0
SK_VFLAG_UNWEIGHTED = 1 << 1
SK_VFLAG_NAN = 1 << 2
SK_VFLAG_NEGATIVE = 1 << 3
SK_VFLAG_BAD_JOINT = 1 << 4
SK_VFLAG_DUPLICATE = 1 << 5
SK_VFLAG_OVER_LIMIT = 1 << 6

SK_DEFORM_LBS = 0
SK_DEFORM_DQS = 1
SK_DEFORM_RIGID = 2
SK_DEFORM_COR = 3
SK_DEFORM_ADDITIVE = 1 << 0
SK_DEFORM_NORMALIZE_WEIGHTS = 1 << 1
SK_DEFORM_NORMAL_FAST = 1 << 2
SK_DEFORM_NO_RENORMALIZE = 1 << 3
SK_DEFORM_IMPLIED_LAST_WEIGHT = 1 << 4

# weights
SK_WFLAG_CHANGED = 1 << 0
SK_WFLAG_FAILED = 1 << 1
SK_WFLAG_INVALID = 1 << 2
SK_WFLAG_UNWEIGHTED = 1 << 3
SK_WFLAG_LOCKED = 1 << 4
SK_WFLAG_SUM_OFF = 1 << 5
SK_WFLAG_UNMATCHED = 1 << 6
SK_WFLAG_ROGUE = 1 << 7
SK_NORMALIZE_DROP_INVALID = 1 << 0
SK_LIMIT_NO_NORMALIZE = 1 << 0
SK_PRUNE_KEEP_ONE = 1 << 0
SK_PARTITION_MAX_RANGES = 4
SK_RECORDS_NORMALIZE = 1
SK_RECORDS_LIMIT = 2
SK_RECORDS_PRUNE = 3
SK_RECORDS_QUANTIZE = 4
SK_RECORDS_ROUND = 5
SK_SKIN_NO_COMMON_ROOT = 1 << 0  # sk_mesh_report.skin_structure (ABI 1.8)
SK_SKIN_SKELETON_INVALID = 1 << 1
SK_SKIN_DUPLICATE_JOINT = 1 << 2
SK_SKIN_INFLUENCE_FORMAT = 1 << 3  # library 1.21.2
SK_SKIN_DRACO_COUNT = 1 << 4  # library 1.26.1
SK_SKIN_JSON_UTF8 = 1 << 5  # library 1.26.2
SK_PRUNE_NORMALIZE = 1 << 1
SK_SMOOTH_UNIFORM = 0
SK_SMOOTH_COTANGENT = 1
SK_ROGUE_PER_COMPONENT = 1 << 0
SK_MIRROR_POSITIVE_TO_NEGATIVE = 0
SK_MIRROR_NEGATIVE_TO_POSITIVE = 1
SK_MIRROR_FLIP = 2
SK_BRUSH_ADD = 0
SK_BRUSH_SUBTRACT = 1
SK_BRUSH_REPLACE = 2
SK_BRUSH_SMOOTH = 3
SK_FALLOFF_SMOOTH = 0
SK_FALLOFF_LINEAR = 1
SK_FALLOFF_CONSTANT = 2
SK_FALLOFF_SHARP = 3
SK_BRUSH_GEODESIC = 1 << 0
SK_BRUSH_NO_NORMALIZE = 1 << 1
SK_BONE_LINKS_MAX = 32
SK_RECORD_MAX_ENTRIES = 65536
SK_TRANSFER_ALLOW_FLIPPED_NORMALS = 1 << 0
SK_TRANSFER_UNIFORM_LAPLACIAN = 1 << 1
SK_TRANSFER_VERTEX_KEPT = 0
SK_TRANSFER_VERTEX_MATCHED = 1
SK_TRANSFER_VERTEX_INPAINTED = 2
SK_TRANSFER_VERTEX_FALLBACK = 3
SK_TRANSFER_VERTEX_FAILED = 4
# SK_PY_SECTION weights constants: add above this line

# weight component type of glTF writes (sk_save_options.weights_type)
SK_WEIGHTS_SOURCE = 0
SK_WEIGHTS_FLOAT = 1
SK_WEIGHTS_U8 = 2
SK_WEIGHTS_U16 = 3

# material alpha modes (sk_material_desc.alpha_mode, ABI 1.11)
SK_ALPHA_OPAQUE = 0
SK_ALPHA_MASK = 1
SK_ALPHA_BLEND = 2
SK_NODES_ANIMATED = 2  # sk_load_options.skeleton_from_nodes bit (ABI 1.11)

# kinds of a scene's listed objects (sk_scene_object_kind, ABI 1.12)
SK_OBJECT_EMPTY = 0
SK_OBJECT_CAMERA = 1
SK_OBJECT_LIGHT = 2
SK_LIGHT_DIRECTIONAL = 0
SK_LIGHT_POINT = 1
SK_LIGHT_SPOT = 2

# deform joints of a scene (sk_scene_deform_joints' out_rule)
SK_DEFORM_RULE_NONE = 0
SK_DEFORM_RULE_SKINS = 1
SK_DEFORM_RULE_HIERARCHY = 2
SK_DEFORM_RULE_ALL = 3

# skf
SK_SKF_FILE_ORDER = 1 << 0
SK_SKF_NO_WELD = 1 << 1
SK_SKF_FAST = 1 << 2  # speed profile (.skf 3.1)
SK_SKF_INFO_WEIGHTS16 = 1 << 0  # sk_skf_info.flags
SK_SKF_INFO_FAST = 1 << 1

# bind
SK_BIND_ROBUST = 0
SK_BIND_NEAREST = 1
SK_BIND_HEAT = 2
SK_BONE_SPACE_BIND = 0
SK_BONE_SPACE_REST = 1
SK_BIND_CAPSULE = 3
SK_BIND_DELAUNAY = 4
SK_BIND_NO_SMOOTHING = 0xFFFFFFFF
SK_BIND_FIT_HINT_NONE = 0
SK_BIND_FIT_HINT_SCALE = 1
SK_BIND_FIT_HINT_AXIS = 2
SK_BIND_FIT_HINT_OFFSET = 3
# SK_PY_SECTION bind constants: add above this line

# Names of the mirrored constants (the struct test compiles a C program printing each one).
CONSTANTS = [n for n in list(globals()) if n.startswith("SK_") and isinstance(globals()[n], int)]

_RESULT_NAMES = {v: n for n, v in globals().items() if n.startswith("SK_ERR_") or n == "SK_OK"}


class SkinkitError(Exception):
    """A libskinkit call failed: ``code`` is the sk_result, ``message`` the library's text."""

    def __init__(self, code, message):
        self.code = int(code)
        self.message = str(message)
        super().__init__(self.code, self.message)

    @property
    def name(self):
        return _RESULT_NAMES.get(self.code, "SK_ERR_%d" % self.code)

    def __str__(self):
        return "%s (%s)" % (self.message, self.name)


class ArgumentRangeError(SkinkitError, ValueError):
    """A count, index or string that does not fit its C parameter or struct field (a uint32 count of 2**32 + 5
    would reach the library as 5, a path with a NUL byte would be cut at it): raised before any native call.
    Both a SkinkitError (SK_ERR_INVALID_ARGUMENT) and a ValueError."""

    def __init__(self, message):
        SkinkitError.__init__(self, SK_ERR_INVALID_ARGUMENT, message)


_INT_CODES = "bBhHiIlLqQ"  # ctypes integer type codes (c_size_t is c_ulong or c_ulonglong)


def int_limits(ctype):
    """(min, max) of a ctypes integer type, or None for any other type."""
    code = getattr(ctype, "_type_", None)
    if not isinstance(code, str) or code not in _INT_CODES:
        return None
    bits = 8 * sizeof(ctype)
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if code.islower() else (0, (1 << bits) - 1)


def check_value(ctype, value, what):
    """Raises ArgumentRangeError when value cannot reach C as ctype unchanged: an integer outside the type's
    range, or bytes with a NUL for a char*. Anything else is left to ctypes (which rejects wrong types)."""
    limits = int_limits(ctype)
    if limits is not None:
        if isinstance(value, bool) or value is None:
            return
        try:
            i = operator.index(value)
        except TypeError:
            return
        if not limits[0] <= i <= limits[1]:
            raise ArgumentRangeError("%s: %d is outside the range of its C type (%d..%d)" % (what, i, *limits))
    elif ctype is c_char_p and isinstance(value, (bytes, bytearray)) and b"\0" in value:
        raise ArgumentRangeError("%s: contains a NUL byte (C strings end at the first one)" % what)


class _Struct(Structure):
    """Base of the struct mirrors: integer and char* fields are range-checked on assignment (check_value)."""

    def __setattr__(self, name, value):
        ctype = type(self)._field_types().get(name)
        if ctype is not None:
            check_value(ctype, value, "%s.%s" % (type(self).__name__, name))
        super().__setattr__(name, value)

    @classmethod
    def _field_types(cls):
        types = cls.__dict__.get("_checked_fields")
        if types is None:
            types = {f[0]: f[1] for f in cls._fields_ if int_limits(f[1]) is not None or f[1] is c_char_p}
            cls._checked_fields = types
        return types


# ------------------------------------------------------------------------------------------- structs
class SkError(_Struct):
    _fields_ = [("code", c_int32), ("message", c_char * SK_ERROR_MESSAGE_SIZE)]


class SkSkeletonDesc(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("joint_count", c_uint32),
        ("names", POINTER(c_char_p)),
        ("parents", c_void_p),
        ("rest_local", c_void_p),
        ("bind", c_void_p),
        ("inverse_bind", c_void_p),
        ("tails", c_void_p),
    ]


class SkPackedDesc(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("influences", c_uint32),
        ("joint_type", c_int32),
        ("weight_type", c_int32),
        ("joints", c_void_p),
        ("joints_stride", c_size_t),
        ("weights", c_void_p),
        ("weights_stride", c_size_t),
    ]


class SkSkinReport(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("max_influences", c_uint32),
        ("vertex_count", c_uint64),
        ("influence_count", c_uint64),
        ("weight_sum_min", c_float),
        ("weight_sum_max", c_float),
        ("off_tolerance", c_uint64),
        ("unweighted", c_uint64),
        ("nan", c_uint64),
        ("negative", c_uint64),
        ("bad_joint", c_uint64),
        ("duplicate", c_uint64),
        ("over_limit", c_uint64),
        ("joints_used", c_uint64),
        ("histogram", c_uint64 * SK_HISTOGRAM_BINS),
        ("findings", c_uint32),
        ("reserved", c_uint32),
    ]


class SkValidateOptions(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("max_influences", c_uint32),
        ("tolerance", c_float),
        ("reserved", c_uint32),
    ]


class SkDeformJob(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("method", c_uint32),
        ("flags", c_uint32),
        ("threads", c_uint32),
        ("vertex_count", c_size_t),
        ("palette", c_void_p),
        ("joint_count", c_size_t),
        ("influences", c_uint32),
        ("joint_type", c_int32),
        ("weight_type", c_int32),
        ("reserved0", c_uint32),
        ("joints", c_void_p),
        ("joints_stride", c_size_t),
        ("weights", c_void_p),
        ("weights_stride", c_size_t),
        ("csr_offsets", c_void_p),
        ("csr_joints", c_void_p),
        ("csr_weights", c_void_p),
        ("in_positions", c_void_p),
        ("in_positions_stride", c_size_t),
        ("out_positions", c_void_p),
        ("out_positions_stride", c_size_t),
        ("in_normals", c_void_p),
        ("in_normals_stride", c_size_t),
        ("out_normals", c_void_p),
        ("out_normals_stride", c_size_t),
        ("in_tangents", c_void_p),
        ("in_tangents_stride", c_size_t),
        ("out_tangents", c_void_p),
        ("out_tangents_stride", c_size_t),
        ("tangent_components", c_uint32),
        ("reserved1", c_uint32),
        ("centers", c_void_p),
        ("centers_stride", c_size_t),
    ]


class SkCylinderDesc(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("segments", c_uint32),
        ("rings", c_uint32),
        ("bones", c_uint32),
        ("radius", c_float),
        ("length", c_float),
        ("blend", c_float),
        ("reserved", c_uint32),
    ]


class SkLoadOptions(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("join_vertices", c_uint32),
        ("validate_structure", c_uint32),
        ("isolate", c_uint32),
        ("timeout_seconds", c_float),
        ("max_memory_mb", c_uint32),
        ("skeleton_from_nodes", c_uint32),  # ABI 1.7
    ]


class SkSaveOptions(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("overwrite", c_uint32),
        ("format", c_char_p),
        ("normalize", c_uint32),
        ("max_influences", c_uint32),
        ("prune", c_float),
        ("as_is", c_uint32),
        ("weights_type", c_uint32),
        ("notes", c_void_p),  # ABI 1.15: a buffer for every note of the save
        ("notes_size", c_size_t),
        ("isolate", c_uint32),  # ABI 1.22: Assimp's FBX / Collada writer in a child process
        ("timeout_seconds", c_float),
    ]


class SkMeshReport(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("skinned", c_uint32),
        ("skin", SkSkinReport),
        ("singular_binds", c_uint64),
        ("nonrigid_binds", c_uint64),
        ("unused_bones", c_uint64),
        ("dropped_weights", c_uint64),
        ("findings", c_uint32),
        ("skin_structure", c_uint32),
    ]


class SkMeshDesc(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("reserved", c_uint32),
        ("name", c_char_p),
        ("vertex_count", c_size_t),
        ("positions", c_void_p),
        ("normals", c_void_p),
        ("tangents", c_void_p),
        ("uv0", c_void_p),
        ("indices", c_void_p),
        ("index_count", c_size_t),
        ("skin", c_void_p),
        ("inverse_bind", c_void_p),
        ("uv1", c_void_p),
        ("colors", c_void_p),
        ("node_name", c_char_p),
    ]


class SkMaterialDesc(_Struct):  # ABI 1.11
    _fields_ = [
        ("size", c_uint32),
        ("alpha_mode", c_uint32),
        ("name", c_char_p),
        ("base_color", c_float * 4),
        ("metallic", c_float),
        ("roughness", c_float),
        ("emissive", c_float * 3),
        ("alpha_cutoff", c_float),
        ("double_sided", c_uint32),
        ("normal_scale", c_float),
        ("base_color_image", c_int32),
        ("metallic_roughness_image", c_int32),
        ("normal_image", c_int32),
        ("emissive_image", c_int32),
        ("occlusion_image", c_int32),
    ]


class SkImageInfo(_Struct):  # ABI 1.13
    _fields_ = [
        ("size", c_uint32),
        ("embedded", c_uint32),
        ("name", c_char_p),
        ("uri", c_char_p),
        ("path", c_char_p),
        ("data", c_void_p),
        ("data_size", c_size_t),
        ("mime", c_char_p),
    ]


class SkObjectInfo(_Struct):  # ABI 1.13
    _fields_ = [
        ("size", c_uint32),
        ("kind", c_int32),
        ("name", c_char_p),
        ("parent_object", c_int32),
        ("parent_joint", c_char_p),
        ("parent_mesh", c_char_p),
        ("world", c_float * 16),
        ("parent_world", c_float * 16),
        ("orthographic", c_uint32),
        ("yfov", c_float),
        ("aspect", c_float),
        ("xmag", c_float),
        ("ymag", c_float),
        ("znear", c_float),
        ("zfar", c_float),
        ("light_type", c_int32),
        ("color", c_float * 3),
        ("intensity", c_float),
        ("inner_cone", c_float),
        ("outer_cone", c_float),
    ]


class SkWeightScope(_Struct):
    _fields_ = [
        ("vertex_mask", c_void_p),
        ("vertex_mask_count", c_size_t),
        ("locked_joints", c_void_p),
        ("locked_joint_count", c_size_t),
    ]


class SkWeightsReport(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("reserved", c_uint32),
        ("vertices_visited", c_uint64),
        ("vertices_changed", c_uint64),
        ("vertices_failed", c_uint64),
        ("invalid_entries", c_uint64),
        ("sum_off", c_uint64),
        ("influences_before", c_uint64),
        ("influences_after", c_uint64),
        ("unmatched", c_uint64),
        ("entries_changed", c_uint64),
        ("joints_affected", c_uint64),
        ("joint_counts", c_void_p),
        ("vertex_flags", c_void_p),
    ]


class SkNormalizeDesc(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("flags", c_uint32),
        ("scope", SkWeightScope),
        ("tolerance", c_float),
        ("reserved", c_uint32),
    ]


class SkLimitDesc(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("max_influences", c_uint32),
        ("scope", SkWeightScope),
        ("flags", c_uint32),
        ("tolerance", c_float),
    ]


class SkPruneDesc(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("flags", c_uint32),
        ("scope", SkWeightScope),
        ("threshold", c_float),
        ("tolerance", c_float),
    ]


class SkQuantizeDesc(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("bits", c_uint32),
        ("scope", SkWeightScope),
        ("out_values", c_void_p),
        ("out_values_count", c_size_t),
    ]


class SkSmoothDesc(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("method", c_uint32),
        ("scope", SkWeightScope),
        ("positions", c_void_p),
        ("positions_stride", c_size_t),
        ("position_count", c_size_t),
        ("triangles", c_void_p),
        ("triangle_count", c_size_t),
        ("iterations", c_uint32),
        ("factor", c_float),
        ("joints", c_void_p),
        ("joint_list_count", c_size_t),
        ("max_influences", c_uint32),
        ("min_weight", c_float),
        ("tolerance", c_float),
        ("reserved", c_uint32),
    ]


class SkRogueDesc(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("flags", c_uint32),
        ("scope", SkWeightScope),
        ("positions", c_void_p),
        ("positions_stride", c_size_t),
        ("position_count", c_size_t),
        ("triangles", c_void_p),
        ("triangle_count", c_size_t),
        ("skeleton", c_void_p),
        ("epsilon", c_float),
        ("tolerance", c_float),
    ]


class SkMirrorDesc(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("mode", c_uint32),
        ("scope", SkWeightScope),
        ("positions", c_void_p),
        ("positions_stride", c_size_t),
        ("position_count", c_size_t),
        ("skeleton", c_void_p),
        ("plane", c_float * 4),
        ("tolerance", c_float),
        ("reserved", c_uint32),
    ]


class SkBrushDesc(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("mode", c_uint32),
        ("falloff", c_uint32),
        ("flags", c_uint32),
        ("scope", SkWeightScope),
        ("joint", c_uint32),
        ("value", c_float),
        ("positions", c_void_p),
        ("positions_stride", c_size_t),
        ("position_count", c_size_t),
        ("triangles", c_void_p),
        ("triangle_count", c_size_t),
        ("dabs", c_void_p),
        ("dab_count", c_size_t),
        ("tolerance", c_float),
        ("reserved", c_uint32),
    ]


class SkSkfMesh(_Struct):
    _fields_ = [
        ("skin", c_void_p),
        ("positions", c_void_p),
        ("indices", c_void_p),
        ("index_count", c_size_t),
    ]


class SkSkfEncodeDesc(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("weight_bits", c_uint32),
        ("max_influences", c_uint32),
        ("level", c_uint32),
        ("flags", c_uint32),
        ("mesh_count", c_uint32),
        ("skeleton", c_void_p),
        ("meshes", POINTER(SkSkfMesh)),
        ("centers", c_void_p),  # ABI 1.5: NULL or mesh_count float pointers (centres of rotation)
    ]


class SkSkfInfo(_Struct):
    _fields_ = [("size", c_uint32)] + [(n, c_uint32) for n in (
        "major", "minor", "flags", "weight_bits", "joint_bits", "joint_count", "mesh_count", "max_influences",
        "chunk_count", "group_count", "header_crc", "payload_crc", "reserved")] + [(n, c_uint64) for n in (
            "vertex_count", "header_size", "payload_size", "file_size", "names_size")]


class SkSkfMeshInfo(_Struct):
    _fields_ = [("size", c_uint32)] + [(n, c_uint32) for n in (
        "max_influences", "order", "has_position_hash", "position_hash", "index_hash", "group", "reserved")] + [
            ("vertex_count", c_uint64), ("index_count", c_uint64), ("coded_count", c_uint32),
            ("distinct_positions", c_uint32), ("has_centers", c_uint32), ("reserved2", c_uint32)]


class SkSkfDecodeDesc(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("mesh", c_uint32),
        ("influences", c_uint32),
        ("joint_type", c_int32),
        ("weight_type", c_int32),
        ("reserved", c_uint32),
        ("indices", c_void_p),
        ("index_count", c_size_t),
        ("joints", c_void_p),
        ("weights", c_void_p),
        ("vertex_capacity", c_size_t),
        ("positions", c_void_p),
        ("centers", c_void_p),  # ABI 1.5: optional 3 * vertex_capacity floats
    ]


class SkSkfChunk(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("tag", c_char * 8),
        ("stored_size", c_uint32),
        ("raw_size", c_uint32),
        ("offset", c_uint64),
    ]


class SkBindDesc(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("method", c_uint32),
        ("positions", c_void_p),
        ("vertex_count", c_size_t),
        ("triangles", c_void_p),
        ("triangle_count", c_size_t),
        ("skeleton", c_void_p),
        ("heads", c_void_p),
        ("tails", c_void_p),
        ("joint_count", c_uint32),
        ("max_influences", c_uint32),
        ("deform", c_void_p),
        ("locked", c_void_p),
        ("vertex_mask", c_void_p),
        ("prune", c_float),
        ("rigid", c_uint32),
        ("falloff_power", c_float),
        ("falloff_cutoff", c_float),
        ("heat_scale", c_float),
        ("no_weld", c_uint32),
        ("bone_space", c_uint32),
        ("capsule_radii", c_void_p),
        ("smooth_iterations", c_uint32),
        ("bone_samples", c_uint32),
        ("parents", c_void_p),  # ABI 1.6
    ]


class SkBindReport(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("method_used", c_uint32),
        ("milliseconds", c_double),
        ("bound_vertices", c_uint64),
        ("fallback_vertices", c_uint64),
        ("components", c_uint64),
        ("fallback_components", c_uint64),
        ("joint_vertex_counts", c_void_p),
        ("vertex_fallback", c_void_p),  # ABI 1.5
        ("joint_fallback_counts", c_void_p),
        ("joint_weight_sums", c_void_p),
    ]


class SkBindFit(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("ok", c_uint32),
        ("hint", c_uint32),
        ("reserved", c_uint32),
        ("inside_share", c_double),
        ("scale_ratio", c_double),
    ]


class SkWeightEntry(_Struct):
    _fields_ = [("group", c_uint32), ("weight", c_float)]


class SkWeightRecord(_Struct):
    _fields_ = [("entries", c_void_p), ("count", c_int32), ("flags", c_int32)]


class SkPartitionRange(_Struct):
    _fields_ = [
        ("first", c_size_t),
        ("count", c_size_t),
        ("influences", c_uint32),
        ("reserved", c_uint32),
        ("entry_offset", c_size_t),
    ]


class SkRecordsEditDesc(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("op", c_uint32),
        ("op_desc", c_void_p),
        ("no_change", c_float),
        ("reserved", c_uint32),
    ]


class SkBoneLinksDesc(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("links", c_uint32),
        ("scope", SkWeightScope),
        ("ranges", c_void_p),
        ("range_count", c_size_t),
        ("joints", c_void_p),
        ("joint_list_count", c_size_t),
        ("threshold", c_float),
        ("bone_space", c_uint32),
        ("positions", c_void_p),
        ("positions_stride", c_size_t),
        ("position_count", c_size_t),
    ]


class SkTransferDesc(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("flags", c_uint32),
        ("scope", SkWeightScope),
        ("source_skin", c_void_p),
        ("source_positions", c_void_p),
        ("source_positions_stride", c_size_t),
        ("source_vertex_count", c_size_t),
        ("source_normals", c_void_p),
        ("source_normals_stride", c_size_t),
        ("source_triangles", c_void_p),
        ("source_triangle_count", c_size_t),
        ("target_positions", c_void_p),
        ("target_positions_stride", c_size_t),
        ("target_vertex_count", c_size_t),
        ("target_normals", c_void_p),
        ("target_normals_stride", c_size_t),
        ("target_triangles", c_void_p),
        ("target_triangle_count", c_size_t),
        ("distance_threshold", c_float),
        ("angle_threshold", c_float),
        ("smooth_iterations", c_uint32),
        ("smooth_factor", c_float),
        ("max_influences", c_uint32),
        ("min_weight", c_float),
    ]


class SkTransferReport(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("reserved", c_uint32),
        ("milliseconds", c_double),
        ("selected", c_uint64),
        ("matched", c_uint64),
        ("inpainted", c_uint64),
        ("fallback", c_uint64),
        ("fallback_components", c_uint64),
        ("failed", c_uint64),
        ("distance_threshold", c_float),
        ("reserved2", c_uint32),
        ("vertex_status", c_void_p),
    ]


class SkDirectDesc(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("pose_count", c_uint32),
        ("scope", SkWeightScope),
        ("vertex", c_size_t),
        ("rest_position", c_void_p),
        ("palettes", c_void_p),
        ("targets", c_void_p),
        ("candidates", c_void_p),
        ("candidate_count", c_size_t),
    ]


class SkDirectReport(_Struct):
    _fields_ = [
        ("size", c_uint32),
        ("candidates_used", c_uint32),
        ("nonzero", c_uint32),
        ("reserved", c_uint32),
        ("residual", c_double),
        ("max_distance", c_double),
        ("achieved", c_void_p),
    ]


# SK_PY_SECTION weights structs: add classes above this line

# SK_PY_SECTION bind structs: add classes above this line


# C typedef name -> mirror. Structs whose first field is `size` get it from new().
STRUCTS = {
    "sk_error": SkError,
    "sk_skeleton_desc": SkSkeletonDesc,
    "sk_packed_desc": SkPackedDesc,
    "sk_skin_report": SkSkinReport,
    "sk_validate_options": SkValidateOptions,
    "sk_deform_job": SkDeformJob,
    "sk_cylinder_desc": SkCylinderDesc,
    "sk_load_options": SkLoadOptions,
    "sk_save_options": SkSaveOptions,
    "sk_mesh_report": SkMeshReport,
    "sk_mesh_desc": SkMeshDesc,
    "sk_material_desc": SkMaterialDesc,
    "sk_image_info": SkImageInfo,
    "sk_object_info": SkObjectInfo,
    "sk_weight_scope": SkWeightScope,
    "sk_weights_report": SkWeightsReport,
    "sk_normalize_desc": SkNormalizeDesc,
    "sk_limit_desc": SkLimitDesc,
    "sk_prune_desc": SkPruneDesc,
    "sk_quantize_desc": SkQuantizeDesc,
    "sk_smooth_desc": SkSmoothDesc,
    "sk_rogue_desc": SkRogueDesc,
    "sk_mirror_desc": SkMirrorDesc,
    "sk_brush_desc": SkBrushDesc,
    "sk_skf_mesh": SkSkfMesh,
    "sk_skf_encode_desc": SkSkfEncodeDesc,
    "sk_skf_info": SkSkfInfo,
    "sk_skf_mesh_info": SkSkfMeshInfo,
    "sk_skf_decode_desc": SkSkfDecodeDesc,
    "sk_skf_chunk": SkSkfChunk,
    "sk_bind_desc": SkBindDesc,
    "sk_bind_report": SkBindReport,
    "sk_bind_fit": SkBindFit,
    "sk_bone_links_desc": SkBoneLinksDesc,
    "sk_weight_entry": SkWeightEntry,
    "sk_weight_record": SkWeightRecord,
    "sk_records_edit_desc": SkRecordsEditDesc,
    "sk_partition_range": SkPartitionRange,
    "sk_transfer_desc": SkTransferDesc,
    "sk_transfer_report": SkTransferReport,
    "sk_direct_desc": SkDirectDesc,
    "sk_direct_report": SkDirectReport,
    # SK_PY_SECTION weights STRUCTS entries: add above this line
    # SK_PY_SECTION bind STRUCTS entries: add above this line
}


def new(struct_type, **fields):
    """A zeroed struct (zero = default everywhere in skinkit.h) with ``size`` set to its sizeof."""
    s = struct_type()
    if struct_type._fields_[0][0] == "size":
        s.size = sizeof(struct_type)
    for k, v in fields.items():
        setattr(s, k, v)
    return s


# ------------------------------------------------------------------------------------------- function table
RESULT = object()       # restype marker: sk_result, checked
ERR = POINTER(SkError)  # trailing sk_error*, supplied automatically
HANDLE = c_void_p       # opaque object pointer (sk_skeleton*, sk_skin*, ...)
OUT_HANDLE = POINTER(c_void_p)
BUF = c_void_p          # caller buffer (numpy .ctypes.data, or None)
u32, i32, size = c_uint32, c_int32, c_size_t

FUNCTIONS = [
    # common
    ("sk_version", u32, []),
    ("sk_version_string", c_char_p, []),
    ("sk_abi_major", u32, []),
    ("sk_abi_minor", u32, []),
    ("sk_result_string", c_char_p, [i32]),
    ("sk_cpu_kernel", c_char_p, []),
    # skeleton
    ("sk_skeleton_create", RESULT, [POINTER(SkSkeletonDesc), OUT_HANDLE, ERR]),
    ("sk_skeleton_destroy", None, [HANDLE]),
    ("sk_skeleton_joint_count", u32, [HANDLE]),
    ("sk_skeleton_joint_name", c_char_p, [HANDLE, u32]),
    ("sk_skeleton_joint_parent", i32, [HANDLE, u32]),
    ("sk_skeleton_find_joint", RESULT, [HANDLE, c_char_p, POINTER(c_uint32)]),
    ("sk_skeleton_get_rest_local", RESULT, [HANDLE, BUF]),
    ("sk_skeleton_get_rest_world", RESULT, [HANDLE, BUF]),
    ("sk_skeleton_get_bind", RESULT, [HANDLE, BUF]),
    ("sk_skeleton_get_inverse_bind", RESULT, [HANDLE, BUF]),
    ("sk_skeleton_get_rest_trs", RESULT, [HANDLE, BUF]),
    ("sk_skeleton_get_tails", u32, [HANDLE, BUF]),
    ("sk_hierarchy_order", RESULT, [BUF, u32, BUF, ERR]),
    ("sk_pose_local_from_trs", RESULT, [BUF, u32, BUF, ERR]),
    ("sk_skeleton_world", RESULT, [HANDLE, BUF, BUF, BUF, ERR]),
    ("sk_palette_compute", RESULT, [HANDLE, BUF, BUF, BUF, ERR]),
    ("sk_skeleton_palette_from_trs", RESULT, [HANDLE, BUF, BUF, BUF, ERR]),
    # skin weights
    ("sk_skin_create", RESULT, [size, u32, OUT_HANDLE, ERR]),
    ("sk_skin_destroy", None, [HANDLE]),
    ("sk_skin_clone", RESULT, [HANDLE, OUT_HANDLE, ERR]),
    ("sk_skin_vertex_count", size, [HANDLE]),
    ("sk_skin_joint_count", u32, [HANDLE]),
    ("sk_skin_influence_count", size, [HANDLE]),
    ("sk_skin_set_csr", RESULT, [HANDLE, BUF, BUF, BUF, ERR]),
    ("sk_skin_get_csr", RESULT, [HANDLE, BUF, BUF, BUF, ERR]),
    ("sk_skin_get_vertex", size, [HANDLE, size, BUF, BUF, size]),
    ("sk_skin_set_vertex", RESULT, [HANDLE, size, BUF, BUF, size, ERR]),
    ("sk_skin_to_packed", RESULT, [HANDLE, POINTER(SkPackedDesc), ERR]),
    ("sk_skin_partition", RESULT, [HANDLE, BUF, POINTER(SkPartitionRange), POINTER(c_uint32), BUF, BUF,
                                   POINTER(c_size_t), ERR]),
    ("sk_skin_from_packed", RESULT, [HANDLE, POINTER(SkPackedDesc), ERR]),
    ("sk_skin_validate", RESULT, [HANDLE, POINTER(SkValidateOptions), POINTER(SkSkinReport), BUF, ERR]),
    # deform
    ("sk_deform_validate", RESULT, [POINTER(SkDeformJob), ERR]),
    ("sk_deform_run", RESULT, [POINTER(SkDeformJob), ERR]),
    ("sk_cor_compute", RESULT, [BUF, size, BUF, size, BUF, BUF, BUF, size, c_float, u32, BUF, ERR]),
    # sample geometry
    ("sk_mesh_cylinder", RESULT, [POINTER(SkCylinderDesc), POINTER(c_size_t), POINTER(c_size_t), BUF, BUF, BUF,
                                  HANDLE, ERR]),
    # io: scene import / export
    ("sk_scene_load", RESULT, [c_char_p, POINTER(SkLoadOptions), OUT_HANDLE, ERR]),
    ("sk_scene_destroy", None, [HANDLE]),
    ("sk_scene_require_skin", RESULT, [HANDLE, ERR]),
    ("sk_scene_load_seconds", c_double, [HANDLE]),
    ("sk_scene_frame", ctypes.c_int, [HANDLE, BUF, BUF, BUF]),
    ("sk_scene_set_frame", RESULT, [HANDLE, c_double, BUF, ERR]),
    ("sk_scene_relink", RESULT, [HANDLE, HANDLE, ERR]),
    ("sk_scene_mesh_count", u32, [HANDLE]),
    ("sk_scene_mesh_name", c_char_p, [HANDLE, u32]),
    ("sk_scene_mesh_vertex_count", size, [HANDLE, u32]),
    ("sk_scene_mesh_index_count", size, [HANDLE, u32]),
    ("sk_scene_mesh_positions", size, [HANDLE, u32, BUF, size]),
    ("sk_scene_mesh_normals", size, [HANDLE, u32, BUF, size]),
    ("sk_scene_mesh_tangents", size, [HANDLE, u32, BUF, size]),
    ("sk_scene_mesh_uv0", size, [HANDLE, u32, BUF, size]),
    ("sk_scene_mesh_uv1", size, [HANDLE, u32, BUF, size]),
    ("sk_scene_mesh_colors", size, [HANDLE, u32, BUF, size]),
    ("sk_scene_mesh_morph_count", u32, [HANDLE, u32]),  # ABI 1.13
    ("sk_scene_mesh_morph_name", c_char_p, [HANDLE, u32, u32]),
    ("sk_scene_mesh_morph_weight", c_float, [HANDLE, u32, u32]),
    ("sk_scene_mesh_morph_positions", size, [HANDLE, u32, u32, BUF, size]),
    ("sk_scene_mesh_set_morphs", RESULT, [HANDLE, u32, u32, POINTER(c_char_p), BUF, BUF, BUF, ERR]),  # ABI 1.14
    ("sk_scene_mesh_morph_keys", size, [HANDLE, u32, u32, BUF, BUF, size]),  # ABI 1.17
    ("sk_scene_mesh_set_morph_keys", RESULT, [HANDLE, u32, u32, size, BUF, BUF, ERR]),  # ABI 1.17
    ("sk_scene_prop_count", u32, [HANDLE]),  # ABI 1.17
    ("sk_scene_prop", RESULT, [HANDLE, u32, POINTER(c_char_p), POINTER(c_char_p), POINTER(c_int32), BUF,
                               POINTER(c_char_p), ERR]),
    ("sk_scene_add_prop", RESULT, [HANDLE, c_char_p, c_char_p, c_int32, BUF, c_char_p, ERR]),
    ("sk_scene_material_prop_count", u32, [HANDLE]),  # ABI 1.18
    ("sk_scene_material_prop", RESULT, [HANDLE, u32, POINTER(c_char_p), POINTER(c_char_p), POINTER(c_int32), BUF,
                                        POINTER(c_char_p), ERR]),
    ("sk_scene_add_material_prop", RESULT, [HANDLE, c_char_p, c_char_p, c_int32, BUF, c_char_p, ERR]),
    ("sk_scene_mesh_prop_count", u32, [HANDLE]),  # ABI 1.19
    ("sk_scene_animation_keyed_joints", RESULT, [HANDLE, u32, BUF, u32, POINTER(c_uint32), ERR]),  # ABI 1.19
    ("sk_scene_weld", RESULT, [HANDLE, POINTER(c_uint64), ERR]),  # ABI 1.20
    ("sk_scene_mesh_bind_world", RESULT, [HANDLE, u32, BUF, ERR]),  # ABI 1.21
    ("sk_scene_mesh_node_transform", RESULT, [HANDLE, u32, BUF, POINTER(c_int32), ERR]),  # ABI 1.27
    ("sk_scene_mesh_prop", RESULT, [HANDLE, u32, POINTER(c_char_p), POINTER(c_char_p), POINTER(c_int32), BUF,
                                    POINTER(c_char_p), ERR]),
    ("sk_scene_add_mesh_prop", RESULT, [HANDLE, c_char_p, c_char_p, c_int32, BUF, c_char_p, ERR]),
    ("sk_scene_mesh_node_name", c_char_p, [HANDLE, u32]),
    ("sk_scene_mesh_rigid_joint", c_int32, [HANDLE, u32]),
    ("sk_scene_mesh_parent_joint", c_int32, [HANDLE, u32]),  # ABI 1.16
    ("sk_scene_mesh_set_parent_joint", RESULT, [HANDLE, u32, c_int32, ERR]),  # ABI 1.25
    ("sk_scene_mesh_gltf_scene", c_int32, [HANDLE, u32]),  # ABI 1.15
    ("sk_scene_mesh_part_count", u32, [HANDLE, u32]),
    ("sk_scene_mesh_part", RESULT, [HANDLE, u32, u32, POINTER(c_uint64), POINTER(c_uint64), POINTER(c_int32),
                                    ERR]),  # ABI 1.16
    ("sk_scene_mesh_set_skin", RESULT, [HANDLE, u32, HANDLE, BUF, ERR]),
    ("sk_scene_mesh_indices", size, [HANDLE, u32, BUF, size]),
    ("sk_scene_skeleton", HANDLE, [HANDLE]),
    ("sk_scene_mesh_skin", HANDLE, [HANDLE, u32]),
    ("sk_scene_mesh_inverse_binds", RESULT, [HANDLE, u32, BUF, BUF, ERR]),
    ("sk_scene_deform_joints", RESULT, [HANDLE, BUF, u32, POINTER(c_uint32), POINTER(c_uint32), ERR]),
    ("sk_scene_animation_count", u32, [HANDLE]),
    ("sk_scene_animation_name", c_char_p, [HANDLE, u32]),
    ("sk_scene_animation_duration", c_double, [HANDLE, u32]),
    ("sk_scene_sample_pose", RESULT, [HANDLE, u32, c_double, BUF, ERR]),
    ("sk_scene_save", RESULT, [HANDLE, c_char_p, POINTER(SkSaveOptions), ERR]),
    ("sk_write_file_atomic", RESULT, [c_char_p, BUF, size, ERR]),
    ("sk_remove_temporary_files", None, []),
    ("sk_scene_validate", RESULT, [HANDLE, POINTER(SkValidateOptions), POINTER(SkMeshReport), size,
                                   POINTER(c_uint32), ERR]),
    ("sk_scene_create", RESULT, [HANDLE, OUT_HANDLE, ERR]),
    ("sk_scene_add_mesh", RESULT, [HANDLE, POINTER(SkMeshDesc), POINTER(c_uint32), ERR]),
    ("sk_scene_add_image", RESULT, [HANDLE, c_char_p, BUF, size, POINTER(c_uint32), ERR]),  # ABI 1.11
    ("sk_scene_add_material", RESULT, [HANDLE, POINTER(SkMaterialDesc), POINTER(c_uint32), ERR]),
    ("sk_scene_mesh_set_material", RESULT, [HANDLE, u32, u32, ERR]),
    ("sk_scene_material_count", u32, [HANDLE]),
    ("sk_scene_image_count", u32, [HANDLE]),
    ("sk_scene_material_name", c_char_p, [HANDLE, u32]),  # ABI 1.12
    ("sk_scene_mesh_material", c_int32, [HANDLE, u32]),
    ("sk_scene_object_count", u32, [HANDLE]),
    ("sk_scene_object_name", c_char_p, [HANDLE, u32]),
    ("sk_scene_object_kind", c_int32, [HANDLE, u32]),
    ("sk_scene_object_parent", c_char_p, [HANDLE, u32]),
    ("sk_scene_note", c_char_p, [HANDLE]),
    ("sk_scene_image_info", RESULT, [HANDLE, u32, POINTER(SkImageInfo), ERR]),  # ABI 1.13
    ("sk_scene_material_info", RESULT, [HANDLE, u32, POINTER(SkMaterialDesc), ERR]),
    ("sk_scene_object_info", RESULT, [HANDLE, u32, POINTER(SkObjectInfo), ERR]),
    ("sk_scene_object_key_times", RESULT, [HANDLE, u32, u32, POINTER(c_double), size, POINTER(c_size_t), ERR]),
    ("sk_scene_object_sample", RESULT, [HANDLE, u32, u32, c_double, BUF, ERR]),
    ("sk_scene_add_object", RESULT, [HANDLE, POINTER(SkObjectInfo), POINTER(c_uint32), ERR]),
    ("sk_scene_add_animation", RESULT, [HANDLE, c_char_p, POINTER(c_double), size, BUF, BUF, POINTER(c_uint32),
                                        ERR]),
    ("sk_scene_animation_key_times", RESULT, [HANDLE, u32, POINTER(c_double), size, POINTER(c_size_t), ERR]),
    ("sk_import_extensions", c_char_p, []),
    ("sk_import_extension_supported", ctypes.c_int, [c_char_p]),
    ("sk_export_extension_supported", ctypes.c_int, [c_char_p]),  # ABI 1.26
    # weights
    ("sk_weights_normalize", RESULT, [HANDLE, POINTER(SkNormalizeDesc), POINTER(SkWeightsReport), ERR]),
    ("sk_weights_limit", RESULT, [HANDLE, POINTER(SkLimitDesc), POINTER(SkWeightsReport), ERR]),
    ("sk_weights_prune", RESULT, [HANDLE, POINTER(SkPruneDesc), POINTER(SkWeightsReport), ERR]),
    ("sk_weights_quantize", RESULT, [HANDLE, POINTER(SkQuantizeDesc), POINTER(SkWeightsReport), ERR]),
    ("sk_weights_smooth", RESULT, [HANDLE, POINTER(SkSmoothDesc), POINTER(SkWeightsReport), ERR]),
    ("sk_weights_remove_rogue", RESULT, [HANDLE, POINTER(SkRogueDesc), POINTER(SkWeightsReport), ERR]),
    ("sk_weights_mirror", RESULT, [HANDLE, POINTER(SkMirrorDesc), POINTER(SkWeightsReport), ERR]),
    ("sk_joint_mirror_name", RESULT, [c_char_p, BUF, size, ERR]),
    ("sk_skeleton_mirror_map", RESULT, [HANDLE, BUF, POINTER(c_uint32), ERR]),
    ("sk_weights_brush", RESULT, [HANDLE, POINTER(SkBrushDesc), POINTER(SkWeightsReport), ERR]),
    ("sk_bone_links", RESULT, [HANDLE, HANDLE, POINTER(SkBoneLinksDesc), OUT_HANDLE, OUT_HANDLE,
                               POINTER(SkWeightsReport), ERR]),
    ("sk_bone_links_source", RESULT, [HANDLE, HANDLE, BUF, BUF, ERR]),
    ("sk_bone_links_pose", RESULT, [HANDLE, HANDLE, BUF, BUF, ERR]),
    ("sk_weights_transfer", RESULT, [HANDLE, POINTER(SkTransferDesc), POINTER(SkTransferReport), ERR]),
    ("sk_weights_direct", RESULT, [HANDLE, POINTER(SkDirectDesc), POINTER(SkDirectReport), ERR]),
    ("sk_records_read", RESULT, [POINTER(SkWeightRecord), size, BUF, u32, BUF, BUF, BUF, size, POINTER(c_size_t), ERR]),
    ("sk_records_update", RESULT, [POINTER(SkWeightRecord), size, BUF, u32, BUF, BUF, BUF, BUF, BUF, POINTER(c_size_t), ERR]),
    ("sk_records_edit", RESULT, [POINTER(SkWeightRecord), size, BUF, u32, POINTER(SkRecordsEditDesc), BUF,
                                 POINTER(c_size_t), POINTER(SkWeightsReport), ERR]),
    # SK_PY_SECTION weights functions: add rows above this line
    # skf
    ("sk_skf_encode_bound", size, [POINTER(SkSkfEncodeDesc)]),
    ("sk_skf_encode", RESULT, [POINTER(SkSkfEncodeDesc), BUF, size, POINTER(c_size_t), ERR]),
    ("sk_skf_peek", RESULT, [BUF, size, POINTER(SkSkfInfo), ERR]),
    ("sk_skf_get_mesh_info", RESULT, [BUF, size, u32, POINTER(SkSkfMeshInfo), ERR]),
    ("sk_skf_position_hash", u32, [BUF, size]),
    ("sk_skf_decode_skeleton", RESULT, [BUF, size, BUF, BUF, BUF, size, ERR]),
    ("sk_skf_decode", RESULT, [BUF, size, POINTER(SkSkfDecodeDesc), ERR]),
    ("sk_skf_chunks", RESULT, [BUF, size, POINTER(SkSkfChunk), u32, POINTER(c_uint32), ERR]),
    # bind
    ("sk_skeleton_bone_segments", RESULT, [HANDLE, u32, BUF, BUF, ERR]),
    ("sk_bind", RESULT, [POINTER(SkBindDesc), HANDLE, POINTER(SkBindReport), ERR]),
    ("sk_bind_fit_check", RESULT, [POINTER(SkBindDesc), POINTER(SkBindFit), ERR]),
    # SK_PY_SECTION bind functions: add rows above this line
]


# ------------------------------------------------------------------------------------------- loading
def _library_file_names():
    if sys.platform.startswith("win"):
        return ["skinkit.dll", "libskinkit.dll"]
    if sys.platform == "darwin":
        return ["libskinkit.dylib"]
    return ["libskinkit.so", "libskinkit.so.%d" % ABI_MAJOR]


def _expand(path):
    """A file path, or a directory holding the library: the file paths to try."""
    path = os.path.abspath(os.path.expanduser(path))
    if os.path.isdir(path):
        return [os.path.join(path, n) for n in _library_file_names()]
    return [path]


def candidate_paths(path=None):
    """Where the library is looked for, in order: (source, path) pairs.

    1. the explicit ``path`` (a file or a directory; the addon passes its preference here),
    2. environment variable ``SKINKIT_LIBRARY`` (file or directory),
    3. the addon folder (this file's directory),
    4. for development from the source tree: ``<repo>/build`` next to ``python_addon/``.
    """
    out = []
    if path:
        out += [("argument", p) for p in _expand(path)]
    env = os.environ.get("SKINKIT_LIBRARY")
    if env:
        out += [("SKINKIT_LIBRARY", p) for p in _expand(env)]
    here = os.path.dirname(os.path.abspath(__file__))
    out += [("addon folder", p) for p in _expand(here)]
    repo = os.path.dirname(os.path.dirname(here))
    if os.path.isfile(os.path.join(repo, "plugin", "skinkit.h")):
        out += [("build dir", p) for p in _expand(os.path.join(repo, "build"))]
    return out


def find_library(path=None):
    """First existing candidate. An explicit path or SKINKIT_LIBRARY that names no library is an error rather
    than a silent fall-back to another copy (a typo must not load a stale build)."""
    if path:
        for p in _expand(path):
            if os.path.isfile(p):
                return p
        raise SkinkitError(SK_ERR_NOT_FOUND, "skinkit library not found at '%s' (check the path in the addon "
                           "preferences)" % path)
    env = os.environ.get("SKINKIT_LIBRARY")
    if env:
        for p in _expand(env):
            if os.path.isfile(p):
                return p
        raise SkinkitError(SK_ERR_NOT_FOUND, "SKINKIT_LIBRARY='%s' does not name libskinkit" % env)
    tried = []
    for _source, p in candidate_paths(None):
        if os.path.isfile(p):
            return p
        tried.append(p)
    raise SkinkitError(SK_ERR_NOT_FOUND, "libskinkit not found; build it (cmake --build build --target addon) "
                       "or set SKINKIT_LIBRARY. Tried: " + ", ".join(tried))


class _Missing:
    """Stand-in for a function the loaded library does not export (an older build): raises on call."""

    def __init__(self, name, path):
        self.name, self.path = name, path

    def __call__(self, *args):
        raise SkinkitError(SK_ERR_UNSUPPORTED, "%s is not exported by %s (library older than the binding?)"
                           % (self.name, self.path))


def _checked_args(argtypes):
    """(position, ctype) of the arguments check_value looks at: integers and char*."""
    return tuple((i, t) for i, t in enumerate(argtypes) if int_limits(t) is not None or t is c_char_p)


def _check_args(name, checks, args):
    for i, t in checks:
        if i < len(args):
            check_value(t, args[i], "%s argument %d" % (name, i + 1))


class _Guarded:
    """Calls a function that returns a value (not sk_result) after checking its integer and char* arguments."""

    __slots__ = ("name", "fn", "checks")

    def __init__(self, name, fn, checks):
        self.name, self.fn, self.checks = name, fn, checks

    def __call__(self, *args):
        _check_args(self.name, self.checks, args)
        return self.fn(*args)


class _Checked:
    """Calls a function returning sk_result (integer and char* arguments checked first); raises SkinkitError on
    a non-zero code."""

    __slots__ = ("name", "fn", "nargs", "takes_err", "lib", "checks")

    def __init__(self, lib, name, fn, argtypes):
        self.lib, self.name, self.fn = lib, name, fn
        self.nargs = len(argtypes)
        self.takes_err = bool(argtypes) and argtypes[-1] is ERR
        self.checks = _checked_args(argtypes)

    def __call__(self, *args):
        _check_args(self.name, self.checks, args)
        err = None
        if self.takes_err and len(args) == self.nargs - 1:
            err = SkError()
            args = args + (byref(err),)
        rc = self.fn(*args)
        if rc != SK_OK:
            msg = err.message.decode("utf-8", "replace") if err is not None and err.message else ""
            if not msg:
                msg = "%s failed: %s" % (self.name, self.lib.result_string(rc))
            raise SkinkitError(rc, msg)
        return rc


class Library:
    """A loaded libskinkit with every FUNCTIONS row bound as an attribute (``lib.sk_skin_create(...)``).

    ``lib.raw`` is the ctypes.CDLL (unchecked functions); ``lib.has(name)`` tells whether the library exports
    a symbol (for features added in later minor versions)."""

    def __init__(self, path):
        self.path = path
        try:
            _bundle.preload(os.path.dirname(path))  # the self-contained zip: its native dependencies first
            self.raw = ctypes.CDLL(path)
        except OSError as e:
            raise SkinkitError(SK_ERR_IO, "cannot load %s: %s" % (path, e)) from None
        try:
            major = self.raw.sk_abi_major
        except AttributeError:
            raise SkinkitError(SK_ERR_VERSION, "%s is not libskinkit (no sk_abi_major)" % path) from None
        major.restype, major.argtypes = c_uint32, []
        self.abi_major = int(major())
        if self.abi_major != ABI_MAJOR:
            raise SkinkitError(SK_ERR_VERSION, "%s has ABI major %d but this addon needs ABI major %d; use the "
                               "libskinkit built with this addon" % (path, self.abi_major, ABI_MAJOR))
        self.missing = []
        for name, restype, argtypes in FUNCTIONS:
            self._bind(name, restype, argtypes)

    def _bind(self, name, restype, argtypes):
        try:
            fn = getattr(self.raw, name)
        except AttributeError:
            self.missing.append(name)
            setattr(self, name, _Missing(name, self.path))
            return
        fn.argtypes = list(argtypes)
        if restype is RESULT:
            fn.restype = c_int32
            setattr(self, name, _Checked(self, name, fn, argtypes))
        else:
            fn.restype = restype
            checks = _checked_args(argtypes)
            setattr(self, name, _Guarded(name, fn, checks) if checks else fn)

    def has(self, name):
        return name not in self.missing and hasattr(self, name)

    def result_string(self, code):
        if self.has("sk_result_string"):
            s = self.sk_result_string(int(code))
            if s:
                return s.decode("utf-8", "replace")
        return _RESULT_NAMES.get(int(code), "error %d" % int(code))

    @property
    def version_string(self):
        return self.sk_version_string().decode()

    def __repr__(self):
        return "<skinkit.Library %s ABI %d>" % (self.path, self.abi_major)


_lock = threading.Lock()
_loaded = {}


def load_library(path=None):
    """Finds (see candidate_paths) and loads libskinkit; cached per resolved file. Raises SkinkitError
    (SK_ERR_NOT_FOUND, SK_ERR_IO or SK_ERR_VERSION) with a message meant for the user."""
    p = os.path.realpath(find_library(path))
    with _lock:
        lib = _loaded.get(p)
        if lib is None:
            lib = Library(p)
            _loaded[p] = lib
        return lib
