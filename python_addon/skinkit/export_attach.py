"""The skeleton's rest as Export via skinkit writes it, and what hangs from a bone placed at that rest.

A file whose rest pose differs from its bind pose (a Blender-written FBX in centimetres: the bind pose is the mesh's
own, a hundredth of the size) comes in through Import via skinkit as an armature whose rest is the bind pose, posed
in the file's rest pose (File Rest Pose), which it records on the armature (bridge.FILE_REST_KEY). The export writes
that pose as the skeleton's rest and the bones' rest as the bind matrices, as the file had them: written anew, the
file shows what Blender shows. Without the record the rest is the bones' rest (Blender's own exporters' rule).

The library's scene holds the skeleton at rest (the armature's rest pose, placed by the armature object's world), so
everything written with it must be placed as it would be at rest too. An object whose parent chain reaches a bone of
the armature (parent_type BONE or BONE_RELATIVE, directly or through other objects: a sword under a hand bone, a
socket empty and what hangs from it) moves with that bone's pose: exported while the armature is posed (an action at
the current frame, a pose held in Pose Mode) its matrix_world is the posed one. Its rest world undoes the bone's pose:

    world_rest = A @ B_rest @ B_pose^-1 @ A^-1 @ world

with A the armature object's world, B_rest the bone's rest as the export writes it (written_rest: bone.matrix_local,
or the file's rest pose that Import via skinkit recorded) and B_pose its pose_bone.matrix (both in armature space).
Blender's own glTF exporter writes such an object as a child of the bone's node with its local matrix, which is the
same place.

A mesh that hangs from a bone without an Armature modifier or weights of its own (a prop: a sword, a helmet) is
written skinned with weight 1 to that bone, so that it follows it in every file format and every clip; the bone is
the nearest exported one at or above the parent bone (with Only Deform Bones a socket bone that does not deform is
left out: the prop follows its nearest deforming ancestor, and a note says so).
"""


def attached_bone(obj, arm):
    """The name of the bone of arm that obj hangs from (through any chain of object parents), or None."""
    p, seen = obj, 0
    while p is not None and p.parent is not None and seen < 10000:
        if p.parent == arm:
            bone = p.parent_bone if p.parent_type in ("BONE", "BONE_RELATIVE") else ""
            return bone if bone and bone in arm.data.bones else None
        p, seen = p.parent, seen + 1
    return None


def written_rest(arm, bone):
    """bone's rest matrix (armature space, numpy 4x4) as Export via skinkit writes the skeleton: the file's rest pose
    that Import via skinkit recorded when it differed from the bind pose (the armature's own rest; the importer posed
    the armature in it, bridge.FILE_REST_KEY), while the bone's rest is still the one it was recorded with; else the
    bone's rest, bone.matrix_local."""
    import numpy as np

    from .bridge import FILE_REST_KEY

    local = np.array(arm.data.bones[bone].matrix_local, np.float64)
    stored = arm.data.get(FILE_REST_KEY)
    rec = stored.get(bone) if stored is not None and hasattr(stored, "get") else None
    if rec is None or len(rec) != 32:
        return local
    rec = np.array(rec, np.float64).reshape(2, 4, 4)
    scale = max(float(np.abs(local[:3, 3]).max()), 1.0)
    return rec[0] if np.abs(rec[1] - local).max() <= 1e-4 * scale and np.isfinite(rec[0]).all() else local


def rest_correction(arm, bone, at_bind=False):
    """4x4 numpy matrix taking a world matrix that follows bone's pose to its world at the rest the export writes
    (written_rest), or with at_bind at the bone's own rest (bone.matrix_local: the bind pose)."""
    import numpy as np

    a = np.array(arm.matrix_world, np.float64)
    rest = np.array(arm.data.bones[bone].matrix_local, np.float64) if at_bind else written_rest(arm, bone)
    pose = np.array(arm.pose.bones[bone].matrix, np.float64)
    try:
        return a @ rest @ np.linalg.inv(pose) @ np.linalg.inv(a)
    except np.linalg.LinAlgError:  # a bone scaled to zero: nothing to undo it with
        return np.eye(4)


def rest_world(obj, arm, at_bind=False):
    """(obj's world matrix at the armature's rest (at_bind: at the bones' own rest) as numpy 4x4, the bone it hangs
    from or None)."""
    import numpy as np

    world = np.array(obj.matrix_world, np.float64)
    bone = attached_bone(obj, arm) if arm is not None else None
    return (world if bone is None else rest_correction(arm, bone, at_bind) @ world), bone


def exported_joint(arm, bone, joints):
    """The nearest bone at or above `bone` that is among the exported joints, or None."""
    b = arm.data.bones.get(bone) if bone else None
    while b is not None and b.name not in joints:
        b = b.parent
    return b.name if b is not None else None
