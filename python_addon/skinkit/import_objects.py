"""The file's cameras, lights and empty nodes as Blender objects (Import via skinkit).

The library lists them with their rest world transform in the file's frame, parents first (api.Scene.object_info,
ABI 1.13). Each becomes an object of Blender's kind, built as Blender 3.4's glTF importer builds it: a perspective
camera by its vertical field of view (sensor fit Vertical), an orthographic one by twice its larger half size; a
light's glTF intensity (candela; lux for a sun) as W (4 pi / 683 W per candela) or W/m^2 (1 / 683), a spot's cone
as its size and blend. It hangs from what it hung from in the file: another of these objects, a bone of the
armature (parent type Bone), or the mesh object drawn by its parent node, and it keeps its world place (root @
world: the same root transform as the armature and the meshes).
"""

import math

import bpy

_LUMENS_PER_WATT = 683.0  # Blender's glTF importer and exporter (PBR_WATTS_TO_LUMENS)
_LIGHT_TYPES = {"SUN": "SUN", "POINT": "POINT", "SPOT": "SPOT"}


def _unit_scale(root):
    """The uniform scale of the root transform (the file's unit in metres)."""
    det = abs(root.to_3x3().determinant())
    return det ** (1.0 / 3.0) if det > 0.0 else 1.0


def _camera(info, unit):
    cam = bpy.data.cameras.new(info["name"] or "Camera")
    if info["orthographic"]:
        cam.type = "ORTHO"
        cam.ortho_scale = max(2.0 * max(info["xmag"], info["ymag"]) * unit, 1e-6)
    else:
        cam.lens_unit = "FOV"
        cam.sensor_fit = "VERTICAL"
        if info["yfov"] > 0.0:
            cam.angle_y = min(max(info["yfov"], 1e-3), math.pi - 1e-3)
    if info["znear"] > 0.0:
        cam.clip_start = info["znear"] * unit
    cam.clip_end = info["zfar"] * unit if info["zfar"] > info["znear"] else 1e12 if not info["orthographic"] else 1e4
    return cam


def _light(info):
    kind = _LIGHT_TYPES.get(info["light_type"], "POINT")
    light = bpy.data.lights.new(info["name"] or "Light", kind)
    light.color = [min(max(c, 0.0), 1.0) for c in info["color"]]
    intensity = max(float(info["intensity"]), 0.0)  # glTF's is >= 0; a file's negative one is not a light
    if kind == "SUN":
        light.energy = intensity / _LUMENS_PER_WATT
    else:
        light.energy = intensity / _LUMENS_PER_WATT * 4.0 * math.pi
    if kind == "SPOT":
        outer = info["outer_cone"] if info["outer_cone"] > 0.0 else math.pi / 4.0
        light.spot_size = min(max(2.0 * outer, 1.0 * math.pi / 180.0), math.pi)
        light.spot_blend = min(max(1.0 - info["inner_cone"] / outer, 0.0), 1.0)
    return light


def _data_of(info, unit):
    if info["kind"] == "camera":
        return _camera(info, unit)
    if info["kind"] == "light":
        return _light(info)
    return None


def _parent(obj, info, made, arm_obj, bones, meshes, joint_objects, rigs=None):
    """Hangs obj where the file hung it: the name of what it should have hung from but cannot, else None. rigs:
    joint name -> (its armature object, that object's matrix in the file's frame) when there are several."""
    if info["parent_object"] is not None and info["parent_object"] < len(made):
        obj.parent = made[info["parent_object"]]
    elif info["parent_joint"] in joint_objects:  # a joint made an empty (an attachment point)
        obj.parent = joint_objects[info["parent_joint"]]
    elif info["parent_joint"] is not None:
        bone = bones.get(info["parent_joint"])
        arm_obj = rigs[info["parent_joint"]][0] if rigs and info["parent_joint"] in rigs else arm_obj
        if arm_obj is not None and bone == "":  # the armature node: the armature object itself
            obj.parent = arm_obj
        elif arm_obj is not None and bone is None and info["parent_joint"] in bones:
            pass  # a root above the armature node (the scene's): the top level
        elif arm_obj is None or bone is None:
            return info["parent_joint"]
        else:
            obj.parent = arm_obj
            obj.parent_type = "BONE"
            obj.parent_bone = bone
    elif info["parent_mesh"] is not None:
        mesh_obj = meshes.get(info["parent_mesh"])
        if mesh_obj is None:
            return info["parent_mesh"]
        obj.parent = mesh_obj
    return None


def _parent_world(obj, worlds, index, made):
    """The world matrix obj's local transform is relative to (parent inverse identity): its parent object's
    intended world, a bone's tail frame in the posed armature, a mesh object's world; None at the top level."""
    from mathutils import Matrix

    p = obj.parent
    if p is None:
        return None
    if obj.parent_type == "BONE":
        pb = p.pose.bones[obj.parent_bone]
        return p.matrix_world @ pb.matrix @ Matrix.Translation((0.0, pb.bone.length, 0.0))
    k = index.get(p.name)
    return worlds[k] if k is not None and made[k] == p else p.matrix_world.copy()


def _key_base(obj, info, parent, root, scene, joint_index, arm_world, binds):
    """K with obj's matrix_basis = K @ M(t), M(t) its keys relative to its file parent's rest world (object_sample):
    the Blender parent's frame (parent: its world at rest, None at the top) undone, the file parent's rest world
    applied. A bone moves with the clip as the file's joint does, so a bone parent's K is taken at the joint's rest
    world: inverse(tail offset) R_j^-1 B_j W_j^-1 (R_j the bone's rest matrix in the bind space, arm_world times its
    matrix_local; B_j the joint's bind, W_j its rest world), the same at every pose."""
    import numpy as np
    from mathutils import Matrix

    pw = Matrix(info["parent_world"].astype(float).tolist())
    if obj.parent is not None and obj.parent_type == "BONE":
        sk = scene.skeleton
        j = joint_index[info["parent_joint"]]
        bone = obj.parent.data.bones[obj.parent_bone]
        bind = Matrix((sk.bind[j] if binds is None else binds[j]).astype(np.float64).tolist())
        rest = Matrix(sk.rest_world[j].astype(np.float64).tolist())
        tail = Matrix.Translation((0.0, bone.length, 0.0))
        rest_bone = arm_world @ bone.matrix_local  # the bone's rest in the bind space (the armature at arm_world)
        return tail.inverted() @ rest_bone.inverted() @ bind @ rest.inverted() @ pw
    if parent is None or abs(parent.determinant()) <= 1e-30:
        return root @ pw
    return parent.inverted() @ root @ pw


def _object_clips(context, scene, made, bases, frame_offset=0.0, posts=None):
    """Each clip that keys some of the objects: an action per keyed object, named "<clip>_<object>", its keys at
    the clip's times (frame = t x fps + frame_offset, as import_anim), matrix_basis = K @ M(t) split into location, quaternion
    (sign-continuous) and scale; stashed on the object's NLA tracks, the first clip's active. Returns the actions."""
    import numpy as np

    from . import import_anim

    rs = context.scene.render
    fps = rs.fps / rs.fps_base
    per_object = {k: [] for k in range(len(made))}
    actions = []
    try:
        for a in range(scene.animation_count):
            for k, obj in enumerate(made):
                times = scene.object_key_times(a, k)
                if not len(times):
                    continue
                base = np.array(bases[k], np.float64)
                post = np.array(posts[k], np.float64) if posts is not None else np.identity(4)
                m = np.stack([base @ scene.object_sample(a, k, t).astype(np.float64) @ post for t in times])
                loc, quat, scale, _res = import_anim.decompose(m)
                quat = import_anim.continuous_signs(quat)
                clip = scene.animation_name(a) or "clip%d" % a
                action = bpy.data.actions.new("%s_%s" % (clip, obj.name))
                action.id_root = "OBJECT"
                actions.append(action)
                frames = times * fps + frame_offset
                import_anim.write_transform_keys(action, frames, loc, quat, scale, "Object Transforms")
                per_object[k].append((clip, float(frames[0]), action))
        for k, entries in per_object.items():
            if entries:
                made[k].rotation_mode = "QUATERNION"
                import_anim.stash_on_nla(made[k], entries)
    except BaseException:
        for act in actions:
            bpy.data.actions.remove(act)
        raise
    return actions


# An empty's own axes from a glTF file as Blender's glTF importer gives them: turned from Y up to Z up like its place
# (the inverse of export_objects._EMPTY_AXES_GLTF).
GLTF_EMPTY_AXES = ((1.0, 0.0, 0.0, 0.0), (0.0, 0.0, 1.0, 0.0), (0.0, -1.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0))


def import_objects(context, scene, root, arm_obj=None, bones=None, meshes=None, clips=True, arm_world=None,
                   binds=None, frame_offset=0.0, joint_objects=None, gltf_axes=False, rigs=None):
    """Creates the scene's cameras, lights and empty nodes in context.collection. root: the mathutils Matrix from
    the file's frame to Blender's world; bones: joint name -> bone name ("" for the armature node, which is the
    armature object; None for a root above it, which is no object); joint_objects: joint name -> the object made of
    it (a node above the armature node, io_scene._holder_empties); gltf_axes: the file is glTF (an empty's own axes turned as its
    place is, GLTF_EMPTY_AXES); arm_world, binds: the armature object's matrix and the joints' bind
    matrices in the file's frame (io_scene._world_binds); rigs: with several armatures, joint name -> (its armature
    object, that object's matrix in the file's frame), instead of arm_obj and arm_world; meshes: mesh node name -> mesh object;
    clips: also their keys in the file's clips, as actions. Returns (objects, data blocks, names of parents that
    could not be found, actions)."""
    made, datas = [], []
    try:
        return _import(context, scene, root, arm_obj, bones or {}, meshes or {}, clips, made, datas, arm_world,
                       binds, frame_offset, joint_objects or {}, gltf_axes, rigs or {})
    except BaseException:  # what was made so far goes again (the caller removes what it made itself)
        for o in made:
            bpy.data.objects.remove(o, do_unlink=True)
        for d in datas:
            (bpy.data.cameras if isinstance(d, bpy.types.Camera) else bpy.data.lights).remove(d)
        raise


def _import(context, scene, root, arm_obj, bones, meshes, clips, made, datas, arm_world, binds, frame_offset,
            joint_objects, gltf_axes, rigs):
    from mathutils import Matrix

    arm_world = Matrix.Identity(4) if arm_world is None else Matrix([list(r) for r in arm_world])
    arm_worlds = {n: Matrix([list(r) for r in w]) for n, (_a, w) in rigs.items()}

    unit = _unit_scale(root)
    lost = []
    infos = [scene.object_info(i) for i in range(len(scene.objects))]
    for info in infos:
        data = _data_of(info, unit)
        if data is not None:
            datas.append(data)
        obj = bpy.data.objects.new(info["name"] or info["kind"].capitalize(), data)
        if data is None:
            obj.empty_display_type = "PLAIN_AXES"
        context.collection.objects.link(obj)
        made.append(obj)
        missing = _parent(obj, info, made, arm_obj, bones, meshes, joint_objects, rigs)
        if missing is not None:
            lost.append(missing)
    context.view_layer.update()  # the armature's posed bones and the meshes' world matrices are current
    # an empty of a glTF file gets its own axes turned to Z up too, as Blender's glTF importer turns them
    posts = [Matrix(GLTF_EMPTY_AXES) if gltf_axes and info["kind"] == "empty" else Matrix.Identity(4)
             for info in infos]
    worlds = [root @ Matrix(info["world"].astype(float).tolist()) @ post for info, post in zip(infos, posts)]
    index = {m.name: k for k, m in enumerate(made)}
    parents = [_parent_world(obj, worlds, index, made) for obj in made]
    for obj, world, parent in zip(made, worlds, parents):
        obj.matrix_parent_inverse = Matrix.Identity(4)
        if parent is not None and abs(parent.determinant()) > 1e-30:
            obj.matrix_basis = parent.inverted() @ world
        else:
            obj.matrix_basis = world
    actions = []
    if clips and scene.animation_count:
        sk = scene.skeleton
        joint_index = {n: j for j, n in enumerate(sk.names)} if sk is not None else {}
        bases = [_key_base(obj, info, parent, root, scene, joint_index,
                           arm_worlds.get(info["parent_joint"], arm_world), binds)
                 for obj, info, parent in zip(made, infos, parents)]
        actions = _object_clips(context, scene, made, bases, frame_offset, posts)
    return made, datas, lost, actions


def summary(objs, lost):
    """The report's words for what import_objects made: "2 cameras, 4 lights, 3 empties", and the parents not
    found (the object then sits at its place at the top level)."""
    counts = {}
    for o in objs:
        kind = {"CAMERA": "cameras", "LIGHT": "lights"}.get(o.type, "empties")
        counts[kind] = counts.get(kind, 0) + 1
    words = ", ".join("%d %s" % (counts[k], k) for k in ("cameras", "lights", "empties") if k in counts)
    if lost:
        words += " (parents not found: %s)" % ", ".join(sorted(set(lost))[:3])
    return words
