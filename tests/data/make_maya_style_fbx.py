# make_maya_style_fbx.py - writes tests/data/maya_style.fbx and its twin maya_style_twin.fbx with Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_maya_style_fbx.py -- tests/data
# The twin is Blender's own FBX export of a small animated rig: an armature of 3 bones, a skinned cylinder "Body"
# (automatic weights), a cube "Gauntlet" parented to bone "hand", a cone "Prop" parented to the armature object,
# a clip of 20 frames. maya_style.fbx is the same scene written the way Maya, 3ds Max and Mixamo files are: every
# bone and the armature node carry a PreRotation (joint orient, RotationActive 1) with Lcl Rotation and every
# rotation key re-expressed after it; Prop has RotationOrder ZXY, rotation and scaling pivots and a geometric
# translation and rotation; Gauntlet and Body a geometric transform too (Body's skin keeps its bind matrices, so
# its control points are moved back: FBX applies the geometric transform on top of the skin's mesh matrix).
# Blender's importer reads both files to the same world positions at every frame (within 1e-4).
import bpy, sys, os, math, array
from mathutils import Euler, Matrix, Vector

for p in bpy.utils.script_paths():
    sys.path.insert(0, os.path.join(p, "addons"))
from io_scene_fbx import parse_fbx, encode_bin

out = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
arm_data = bpy.data.armatures.new("Rig")
arm = bpy.data.objects.new("Rig", arm_data)
bpy.context.scene.collection.objects.link(arm)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.mode_set(mode="EDIT")
b0 = arm_data.edit_bones.new("upper"); b0.head = (0, 0, 0); b0.tail = (0, 0, 1)
b1 = arm_data.edit_bones.new("lower"); b1.head = (0, 0, 1); b1.tail = (0, 0, 2); b1.parent = b0; b1.use_connect = True
b2 = arm_data.edit_bones.new("hand"); b2.head = (0, 0, 2); b2.tail = (0.5, 0, 2.5); b2.parent = b1; b2.use_connect = True
bpy.ops.object.mode_set(mode="OBJECT")
bpy.ops.mesh.primitive_cylinder_add(vertices=12, radius=0.2, depth=2, location=(0, 0, 1))
cyl = bpy.context.active_object; cyl.name = "Body"
bpy.ops.object.mode_set(mode="EDIT"); bpy.ops.mesh.subdivide(number_cuts=3); bpy.ops.object.mode_set(mode="OBJECT")
cyl.select_set(True); arm.select_set(True); bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
bpy.ops.object.select_all(action="DESELECT")
bpy.ops.mesh.primitive_cube_add(size=0.3, location=(0.6, 0.1, 2.6), rotation=(0.3, 0.2, 0.1))
cube = bpy.context.active_object; cube.name = "Gauntlet"
m = cube.matrix_world.copy(); cube.parent = arm; cube.parent_type = "BONE"; cube.parent_bone = "hand"
cube.matrix_world = m
bpy.ops.mesh.primitive_cone_add(radius1=0.2, depth=0.4, location=(1.5, 0, 0.5), rotation=(0.2, 0.4, -0.3))
cone = bpy.context.active_object; cone.name = "Prop"
m = cone.matrix_world.copy(); cone.parent = arm; cone.matrix_world = m
arm.location = (0.3, -0.2, 0.1); arm.rotation_euler = (0.1, 0.0, 0.4)
for f, a in ((1, 0.0), (10, 0.8), (20, -0.5)):
    for name, ax in (("upper", (1, 0, 0)), ("lower", (0, 1, 1)), ("hand", (1, 1, 0))):
        pb = arm.pose.bones[name]
        pb.rotation_mode = "XYZ"
        pb.rotation_euler = [a * c for c in ax]
        pb.keyframe_insert("rotation_euler", frame=f)
bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 20
twin = os.path.join(out, "maya_style_twin.fbx")
bpy.ops.export_scene.fbx(filepath=twin, add_leaf_bones=False, bake_anim_simplify_factor=0.0)

# node -> (rotation order, PreRotation, rotation pivot, scaling pivot, geometric translation, geometric rotation).
# Blender applies PreRotation in the node's order and Assimp in XYZ: a non-XYZ node gets a one-axis PreRotation.
SPEC = {
    "Rig": ("XYZ", (0, 0, 90), None, None, None, None),
    "upper": ("XYZ", (30, -20, 45), None, None, None, None),
    "lower": ("XYZ", (-60, 10, 5), None, None, None, None),
    "hand": ("XYZ", (90, 0, -90), None, None, None, None),
    "Prop": ("ZXY", (0, 0, 30), (0.1, 0.2, -0.3), (-0.2, 0.1, 0.05), (0.05, -0.1, 0.2), (20, -10, 30)),
    "Gauntlet": ("XYZ", None, None, None, (0.05, -0.1, 0.2), None),
    "Body": ("XYZ", None, None, None, (0.0, 0.1, -0.05), (0, 0, 30)),
}
ORDERS = {"XYZ": 0, "XZY": 1, "YZX": 2, "YXZ": 3, "ZXY": 4, "ZYX": 5}

root, version = parse_fbx.parse(twin)


def kids(e, name):
    return [c for c in e.elems if c.id == name]


def kid(e, name):
    k = kids(e, name)
    return k[0] if k else None


objects, conns = kid(root, b"Objects"), kid(root, b"Connections")
byid = {e.props[0]: e for e in objects.elems if e.props and isinstance(e.props[0], int)}
links = [c.props for c in kids(conns, b"C")]


def name_of(e):
    return e.props[1].split(b"\x00")[0].decode()


def p70(e):
    return kid(e, b"Properties70")


def getp(e, n):
    return next((p for p in p70(e).elems if p.props[0] == n), None)


def vec(e, n):
    p = getp(e, n)
    return Vector(p.props[4:7]) if p else Vector((0.0, 0.0, 0.0))


def setp(e, n, values, head, types):
    p = getp(e, n)
    if p is not None:
        p70(e).elems.remove(p)
    p70(e).elems.append(parse_fbx.FBXElem(b"P", list(head) + list(values), bytearray(types), []))


def setvec(e, n, v, anim=False):
    head = (n, n, b"", b"A") if anim else (n, b"Vector3D", b"Vector", b"")
    setp(e, n, [float(x) for x in v], head, b"SSSSDDD")


def rmat(deg, order):
    return Euler([math.radians(a) for a in deg], order).to_matrix()


def euler(mat, order, compat=None):
    e = mat.to_euler(order, Euler([math.radians(a) for a in compat], order)) if compat else mat.to_euler(order)
    return [math.degrees(a) for a in e]


def linked(child_type, parent, prop=None):
    """Objects of record child_type connected to parent (through property prop when given)."""
    return [byid[c[1]] for c in links if c[2] == parent and byid.get(c[1]) is not None and byid[c[1]].id == child_type
            and (prop is None or (len(c) > 3 and c[3] == prop))]


def reorient(model, order, pre):
    """PreRotation pre before the node's rotation, its rotation and keys re-expressed in order after it."""
    P = rmat(pre or (0, 0, 0), order)
    R = rmat(vec(model, b"Lcl Rotation"), "XYZ")
    if pre:
        setvec(model, b"PreRotation", pre)
        setp(model, b"RotationActive", [1], (b"RotationActive", b"bool", b"", b""), b"SSSSI")
    if order != "XYZ":
        setp(model, b"RotationOrder", [ORDERS[order]], (b"RotationOrder", b"enum", b"", b""), b"SSSSI")
    setvec(model, b"Lcl Rotation", euler(P.inverted() @ R, order), anim=True)
    for cn in linked(b"AnimationCurveNode", model.props[0], b"Lcl Rotation"):
        ch = {c[3]: byid[c[1]] for c in links if c[2] == cn.props[0] and len(c) > 3}
        X, Y, Z = (kid(ch[k], b"KeyValueFloat").props[0] for k in (b"d|X", b"d|Y", b"d|Z"))
        prev = None
        for k in range(len(X)):
            prev = euler(P.inverted() @ rmat((X[k], Y[k], Z[k]), "XYZ"), order, prev)
            X[k], Y[k], Z[k] = prev
        for p in p70(cn).elems:
            i = {b"d|X": 0, b"d|Y": 1, b"d|Z": 2}.get(p.props[0])
            if i is not None:
                p.props[4] = float((X, Y, Z)[i][0])
    return R


def pivots(model, R, rpiv, spiv):
    """Rotation and scaling pivots on an unanimated node; Lcl Translation keeps its place (S = 1)."""
    assert not linked(b"AnimationCurveNode", model.props[0])
    setvec(model, b"RotationPivot", rpiv)
    setvec(model, b"ScalingPivot", spiv)
    t = vec(model, b"Lcl Translation")
    setvec(model, b"Lcl Translation", t - Vector(rpiv) + R @ Vector(rpiv), anim=True)


def geometric(model, order, gt, gr):
    """A geometric transform G; the geometry's points and normals moved by G^-1, so the world shape stays."""
    gr = gr or (0, 0, 0)
    setvec(model, b"GeometricTranslation", gt)
    if any(gr):
        setvec(model, b"GeometricRotation", gr)
    G = Matrix.Translation(gt) @ rmat(gr, order).to_4x4()
    Gi, Ri = G.inverted(), rmat(gr, order).inverted()
    geom = linked(b"Geometry", model.props[0])[0]
    v = kid(geom, b"Vertices").props[0]
    for i in range(0, len(v), 3):
        v[i], v[i + 1], v[i + 2] = Gi @ Vector(v[i:i + 3])
    for layer in kids(geom, b"LayerElementNormal"):
        n = kid(layer, b"Normals").props[0]
        for i in range(0, len(n), 3):
            n[i], n[i + 1], n[i + 2] = Ri @ Vector(n[i:i + 3])


for model in [e for e in objects.elems if e.id == b"Model" and name_of(e) in SPEC]:
    order, pre, rpiv, spiv, gt, gr = SPEC[name_of(model)]
    R = reorient(model, order, pre)
    if rpiv:
        pivots(model, R, rpiv, spiv)
    if gt:
        geometric(model, order, gt, gr)


def convert(e):
    o = encode_bin.FBXElem(e.id)
    add = {"S": o.add_string, "R": o.add_bytes, "I": o.add_int32, "L": o.add_int64, "Y": o.add_int16,
           "C": lambda v: o.add_bool(bool(v)), "F": lambda v: o.add_float32(float(v)),
           "D": lambda v: o.add_float64(float(v)), "d": o.add_float64_array, "f": o.add_float32_array,
           "i": o.add_int32_array, "l": o.add_int64_array, "b": o.add_byte_array}
    for t, v in zip(e.props_type, e.props):
        add[chr(t)](v)
    o.elems = [convert(c) for c in e.elems]
    return o


top = encode_bin.FBXElem(b"")
top.elems = [convert(c) for c in root.elems]
encode_bin.write(os.path.join(out, "maya_style.fbx"), top, version)
