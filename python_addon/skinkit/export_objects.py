"""Blender's cameras, lights and empties into a library scene (Export via skinkit, ABI 1.13 Scene.add_object).

The reverse of import_objects.py, with the conversions of Blender 3.4's glTF exporter: a perspective camera's
vertical field of view from its angle, sensor fit and the render's aspect, an orthographic one's half sizes from
its scale; a point or spot light's W as candela (683 / 4 pi), a sun's W/m^2 as lux (683), a spot's size and blend
as its cones. Each keeps its world place in Blender's frame (the scene's, which the writers turn into the file's)
and what it hangs from: another exported object, a bone of the exported armature (the nearest exported one at or
above its parent bone; its place is the one it has at the armature's rest, export_attach.py), or an exported mesh
object.
Area lights have no glTF kind and are named in a note.
"""

import math

from . import export_attach

_LUMENS_PER_WATT = 683.0


def _depth(obj):
    d, p = 0, obj.parent
    while p is not None and d < 10000:
        d, p = d + 1, p.parent
    return d


def candidates(context, selected_only):
    """The cameras, lights and empties to export (the selected ones, or the scene's), parents first."""
    pool = context.selected_objects if selected_only else context.scene.objects
    objs = [o for o in pool if o.type in ("CAMERA", "LIGHT", "EMPTY")]
    return sorted(objs, key=_depth)


def _render_aspect(context):
    r = context.scene.render
    w, h = r.pixel_aspect_x * r.resolution_x, r.pixel_aspect_y * r.resolution_y
    return (w / h) if w > 0 and h > 0 else 1.0


def _camera_params(cam, aspect):
    near, far = cam.clip_start, cam.clip_end
    if cam.type == "ORTHO":
        half = cam.ortho_scale / 2.0
        xmag, ymag = (half, half / aspect) if aspect >= 1.0 else (half * aspect, half)
        return dict(orthographic=True, xmag=xmag, ymag=ymag, znear=near, zfar=far)
    if aspect >= 1.0:
        yfov = 2.0 * math.atan(math.tan(cam.angle * 0.5) / (aspect if cam.sensor_fit != "VERTICAL" else 1.0))
    else:
        yfov = cam.angle if cam.sensor_fit != "HORIZONTAL" else 2.0 * math.atan(math.tan(cam.angle * 0.5) / aspect)
    return dict(orthographic=False, yfov=yfov, aspect=aspect, znear=near, zfar=far)


def _light_params(light):
    kind = light.type
    energy = max(float(light.energy), 0.0)
    out = dict(light_type=kind, color=tuple(max(float(c), 0.0) for c in light.color))
    out["intensity"] = energy * _LUMENS_PER_WATT if kind == "SUN" else energy * _LUMENS_PER_WATT / (4.0 * math.pi)
    if kind == "SPOT":
        outer = min(max(light.spot_size / 2.0, 1e-4), math.pi / 2.0)
        out.update(outer_cone=outer, inner_cone=outer * (1.0 - min(max(light.spot_blend, 0.0), 1.0)))
    return out


def _parent_args(obj, index, arm, joints, meshes, arm_joint):
    p = obj.parent
    if p is None:
        return {}
    if p.name in index:
        return dict(parent_object=index[p.name])
    if obj.parent_type in ("BONE", "BONE_RELATIVE") and arm is not None and p == arm:
        joint = export_attach.exported_joint(arm, obj.parent_bone, joints)
        return dict(parent_joint=joint) if joint is not None else {}
    if arm_joint is not None and p == arm:  # under the armature object, written as the bones' parent joint
        return dict(parent_joint=arm_joint)
    if p.name in meshes:
        return dict(parent_mesh=p.name)
    return {}


def write_objects(context, scene, objs, arm=None, joints=(), meshes=(), arm_joint=None, arms=None):
    """Adds objs (parents first) to scene: (names written, notes). arm_joint: the joint written for the armature
    object itself (its children hang from it), or None. arms: with several armatures, [(armature object, its
    arm_joint)]: an object takes the one above it. An empty's own axes in a glTF file (turned to Y up on both sides,
    as Blender's glTF exporter writes them) are the library's: the scene has Blender's frame, whose objects' axes
    its glTF writer turns (session 75; the addon turned empties itself before)."""

    index, written, skipped = {}, [], []
    joints, meshes = set(joints), set(meshes)
    aspect = _render_aspect(context)
    for obj in objs:
        params = {}
        if obj.type == "CAMERA":
            kind, params = "camera", _camera_params(obj.data, aspect)
        elif obj.type == "LIGHT":
            if obj.data.type not in ("SUN", "POINT", "SPOT"):
                skipped.append(obj.name)
                continue
            kind, params = "light", _light_params(obj.data)
        else:
            kind = "empty"
        a, a_joint = _armature_above(obj, arms) if arms else (arm, arm_joint)
        params.update(_parent_args(obj, index, a, joints, meshes, a_joint))
        world = export_attach.rest_world(obj, a)[0]  # a bone's child as at the armature's rest
        index[obj.name] = scene.add_object(kind, obj.name, world, **params)
        written.append(obj.name)
    notes = ["area lights have no glTF kind, not written: %s" % ", ".join(skipped[:3])] if skipped else []
    keyed = [o.name for o in objs if o.name in written and _animated(o)]
    if keyed:  # written at the current frame: say that their motion is not (the library takes a joint's keys only)
        notes.append("the animation of %d camera(s), light(s) or empties not written, placed as at the current frame: "
                     "%s" % (len(keyed), ", ".join(keyed[:3]) + (", ..." if len(keyed) > 3 else "")))
    return written, notes


def _armature_above(obj, arms):
    """(armature object, its arm_joint) of arms that obj hangs from through its parents, else the first."""
    by_name = {a.name: (a, j) for a, j in arms}
    p, seen = obj.parent, 0
    while p is not None and seen < 10000:
        if p.name in by_name and by_name[p.name][0] == p:
            return by_name[p.name]
        p, seen = p.parent, seen + 1
    return arms[0]


def _animated(obj):
    """Whether an object carries keys of its own (an action or NLA strips), which the export does not write."""
    ad = obj.animation_data
    return ad is not None and (ad.action is not None or any(t.strips for t in ad.nla_tracks))
