"""File import/export operators: Export ▸ Skin data (.skf) (export_scene.skf), Import ▸ Assimp via skinkit
(import_scene.skinkit_assimp) and Export ▸ Assimp via skinkit (export_scene.skinkit_assimp), plus their File menu
entries (appended in register through MENUS).

Spaces: .skf stores the joint table in the armature's object space (bone.matrix_local as bind matrices) and hashes
the base-mesh positions moved into that space, which is where a runtime's skinned positions live. The Assimp export
writes everything in world space (bones: armature world matrix * bone.matrix_local, meshes: object world matrix *
base-mesh positions), so the bind matrices are the armature's world rest pose. The base mesh (obj.data) is what is
written in both: modifiers (a Subdivision Surface, the Armature modifier itself) are not applied, so the vertex
order and count match the vertex groups.
"""

import os
import re

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

# What the last run of each operator produced (object names, counts): read by the tests.
LAST_IMPORT = {}
LAST_EXPORT_SKF = {}
LAST_EXPORT_ASSIMP = {}

# Safe Load's limits, as the CLI's contained reads (plugin/cli_load.c): a time limit, and the memory the reading
# child may take - 4 GiB, or 32 x the file's size when that is more
SAFE_LOAD_SECONDS = 120.0


def safe_load_memory_mb(path):
    try:
        size_mb = os.path.getsize(path) >> 20
    except OSError:
        size_mb = 0
    return max(4096, 32 * size_mb)


def _ops():
    from . import operators

    return operators


def _np():
    import numpy as np

    return np


def _skinned_targets(context, selected_only=True):
    """(meshes, armatures) to export: the selected meshes (or every mesh of the scene) and the armature objects that
    deform them (Armature modifier or armature parent), plus a selected armature for meshes without one."""
    from . import bridge

    objs = context.selected_objects if selected_only else context.scene.objects
    meshes = sorted((o for o in objs if o.type == "MESH"), key=lambda o: o.name)
    arms = {}
    for o in meshes:
        a = bridge.mesh_armature(o)
        if a is not None:
            arms[a.name] = a
    if not arms:
        for o in objs:
            if o.type == "ARMATURE":
                arms[o.name] = o
    return meshes, [arms[k] for k in sorted(arms)]


def _armature_space_positions(obj, arm):
    np = _np()
    from . import bridge

    pos = bridge.mesh_positions(obj.data).astype(np.float64)
    m = np.array(arm.matrix_world.inverted() @ obj.matrix_world, np.float64)
    return (pos @ m[:3, :3].T + m[:3, 3]).astype(np.float32)


# ------------------------------------------------------------------------------------------- .skf export
class SKINKIT_OT_export_skf(bpy.types.Operator, ExportHelper):
    """Write the skin weights of the selected skinned meshes and their armature's joint table to a compact .skf
    file (quantized weights for game runtimes)"""

    bl_idname = "export_scene.skf"
    bl_label = "Export Skin Data (.skf)"
    bl_options = {"REGISTER", "UNDO"}

    filename_ext = ".skf"
    filter_glob: StringProperty(default="*.skf", options={"HIDDEN"})

    weight_bits: EnumProperty(name="Weight Bits", items=(
        ("8", "8-bit", "Weights in steps of 1/255 summing to exactly 255"),
        ("16", "16-bit", "Weights in steps of 1/65535 summing to exactly 65535")), default="8")
    max_influences: IntProperty(name="Max Influences", description="Largest weights kept per vertex (renormalized)",
                                default=4, min=1, max=8)
    vertex_order: EnumProperty(name="Vertex Order", items=(
        ("INDEX", "Index Buffer", "Code vertices in order of first use by the mesh's triangles (its loop triangles): "
         "smaller files; decoding needs the same triangle list"),
        ("FILE", "Vertex Order", "Code vertices in mesh order: decoding needs no index buffer")), default="INDEX")
    only_deform: BoolProperty(name="Only Deform Bones", description="Joint table of the deforming bones only",
                              default=True)
    position_hash: BoolProperty(name="Position Hash", description="Store a hash of the rest positions (armature "
                                "space) so a runtime can detect a mismatched mesh", default=True)
    weld: BoolProperty(name="Weld Copies", description="Do not store a vertex at the same rest position as an earlier "
                       "one with the same weights (smaller files; decoding then needs the armature-space rest "
                       "positions, whose hash is then stored too)", default=True)
    level: IntProperty(name="Compression", description="zlib level", default=9, min=1, max=9)

    @classmethod
    def poll(cls, context):
        if context.mode != "OBJECT":
            cls.poll_message_set("Needs Object mode")
            return False
        if not any(o.type == "MESH" for o in context.selected_objects or []):
            cls.poll_message_set("No mesh selected")
            return False
        return True

    def execute(self, context):
        ops = _ops()
        np = _np()
        from . import bridge

        meshes, arms = _skinned_targets(context)
        meshes = [o for o in meshes if o.vertex_groups]
        if not meshes:
            self.report({"ERROR"}, "Skinkit: no selected mesh with vertex groups")
            return {"CANCELLED"}
        if len(arms) != 1:
            self.report({"ERROR"}, "Skinkit: the selected meshes must be deformed by exactly one armature (found %s)"
                        % (", ".join(a.name for a in arms) or "none"))
            return {"CANCELLED"}
        arm = arms[0]
        wm = context.window_manager
        wm.progress_begin(0, len(meshes) + 1)
        skins = []
        try:
            api = ops._load_api(context)
            bones = bridge.armature_bones(arm, self.only_deform)
            if not bones:
                raise ValueError("armature %s has no %sbones" % (arm.name, "deforming " if self.only_deform else ""))
            names = [b.name for b in bones]
            index = {b.name: i for i, b in enumerate(bones)}
            parents = [index.get(b.parent.name, -1) if b.parent is not None else -1 for b in bones]
            rest = np.stack([np.array(b.matrix_local, np.float32) for b in bones])
            items, ignored, vertices, unweighted = [], set(), 0, 0
            with api.Skeleton(names, parents, rest_local=bridge.rest_local_from_world(parents, rest),
                              bind=rest) as sk:
                for i, obj in enumerate(meshes):
                    off, jt, wt, ign = bridge.vertex_groups_to_bone_csr(obj, names)
                    ignored.update(ign)
                    unweighted += int(np.count_nonzero(np.diff(off.astype(np.int64)) == 0))
                    skin = api.Skin.from_csr(off, jt, wt, len(names))
                    skins.append(skin)
                    pos = _armature_space_positions(obj, arm) if self.position_hash or self.weld else None
                    tri = bridge.mesh_triangles(obj.data) if self.vertex_order == "INDEX" else None
                    items.append((skin, pos, tri))
                    vertices += skin.vertex_count
                    wm.progress_update(i + 1)
                data = api.skf_encode(sk, items, weight_bits=int(self.weight_bits),
                                      max_influences=self.max_influences, level=self.level,
                                      file_order=self.vertex_order == "FILE", weld=self.weld)
            with open(bpy.path.abspath(self.filepath), "wb") as f:
                f.write(data)
        except Exception as e:
            return ops._fail(self, e)
        finally:
            for s in skins:
                s.close()
            wm.progress_end()
        LAST_EXPORT_SKF.clear()
        LAST_EXPORT_SKF.update(path=self.filepath, meshes=[o.name for o in meshes], armature=arm.name, joints=names,
                               size=len(data), ignored_groups=sorted(ignored), unweighted=unweighted)
        msg = "%s: %d meshes, %d vertices, %d joints, %d bytes" % (os.path.basename(self.filepath), len(meshes),
                                                                    vertices, len(names), len(data))
        if ignored:
            msg += " (groups without a bone ignored: %s)" % ", ".join(sorted(ignored))
        if unweighted:  # written with all-zero weights: worth a warning, not a failure
            self.report({"WARNING"}, msg + "; %d vertices have no weight" % unweighted)
        else:
            self.report({"INFO"}, msg)
        return {"FINISHED"}


# ------------------------------------------------------------------------------------------- Assimp import
_IMPORT_GLOB = "*.x;*.b3d;*.md5mesh;*.mesh;*.smd;*.iqm;*.ms3d;*.md2;*.md3;*.mdl;*.3ds;*.obj;*.dae;*.fbx;*.gltf;*.glb;*.vrm"


def _remove_created(objs, datas):
    for o in objs:
        if o is not None and o.name in bpy.data.objects:
            bpy.data.objects.remove(o, do_unlink=True)
    for d in datas:
        try:
            if isinstance(d, bpy.types.Mesh) and d.users == 0:
                bpy.data.meshes.remove(d)
            elif isinstance(d, bpy.types.Armature) and d.users == 0:
                bpy.data.armatures.remove(d)
            elif isinstance(d, bpy.types.Camera) and d.users == 0:
                bpy.data.cameras.remove(d)
            elif isinstance(d, bpy.types.Light) and d.users == 0:
                bpy.data.lights.remove(d)
            elif isinstance(d, bpy.types.Action):
                bpy.data.actions.remove(d)
        except ReferenceError:
            pass


def import_root(scene, up_axis, Matrix, metres_per_unit=1.0):
    """The root objects' transform from the file's numbers to Blender's world: glTF's frame (Y up, metres) turned to
    Z up, after the file's own frame (sk_scene_frame: an FBX's unit and axes) for AUTO; Y and Z keep the axes asked
    for and take the file's unit. Metres are then the Blender scene's units (metres_per_unit: its Unit Scale), as
    Blender's importers convert them."""
    np = _np()
    _declared, unit, _axes, g = scene.frame()
    to_blender = Matrix.Rotation(np.pi / 2, 4, "X")  # glTF (x, y, z) -> Blender (x, -z, y)
    to_units = Matrix.Scale(1.0 / metres_per_unit, 4) if metres_per_unit > 0 else Matrix.Identity(4)
    if up_axis == "AUTO":
        return to_units @ to_blender @ Matrix(np.array(g, np.float64).reshape(4, 4).T.tolist())
    scale = Matrix.Scale(unit, 4)
    return to_units @ ((to_blender @ scale) if up_axis == "Y" else scale)


def clip_frame_offset(path):
    """The frame of a clip's time 0 in Blender's timeline: 1 for FBX (Blender's FBX importer adds one frame to every
    key, and its exporter writes frame f at (f - 1) / fps from a scene starting at frame 1), else 0 (glTF's convention,
    Blender's glTF importer and exporter: frame = t * fps)."""
    return 1.0 if os.path.splitext(path)[1].lower() == ".fbx" else 0.0


def objects_left_out(objects):
    """The report's words for the file's cameras, lights and empty nodes when the importer is asked not to create
    them ("" when there are none): counts by kind with up to three names each."""
    parts = []
    for kind, plural in (("camera", "cameras"), ("light", "lights"), ("empty", "empty nodes")):
        names = [n for n, k, _ in objects if k == kind]
        if names:
            shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
            parts.append("%d %s (%s)" % (len(names), plural, shown))
    if not parts:
        return ""
    return "not imported: " + ", ".join(parts) + " (Cameras, Lights, Empties is off)"


class SKINKIT_OT_import_assimp(bpy.types.Operator, ImportHelper):
    """Import meshes, armature, vertex groups, shape keys, rest pose, materials and images, clips as actions,
    cameras, lights and empties from any format Assimp reads (.x, .b3d, .md5mesh, Ogre .mesh, .smd, ...), through
    the skinkit library"""

    bl_idname = "import_scene.skinkit_assimp"
    bl_label = "Import via skinkit (Assimp)"
    bl_options = {"REGISTER", "UNDO"}

    filter_glob: StringProperty(default=_IMPORT_GLOB, options={"HIDDEN"})

    up_axis: EnumProperty(name="Up Axis", description="Axes and unit of the file: turned and scaled into Blender's "
                          "Z-up metres by the root object's transform (the mesh data keeps the file's coordinates)",
                          items=(
                              ("AUTO", "From File", "The axes and unit the file declares (an FBX's GlobalSettings: "
                               "Blender's and Maya's are centimetres), else Y up in metres"),
                              ("Y", "Y Up", "Assimp's convention (glTF, .x, Ogre, ...), in the file's unit"),
                              ("Z", "Z Up", "Keep the file's axes, in the file's unit")), default="AUTO")
    custom_normals: BoolProperty(name="Custom Normals", description="Use the file's normals as custom split normals",
                                 default=True)
    uvs: BoolProperty(name="UVs", description="Import the UV sets (the first two)", default=True)
    colors: BoolProperty(name="Vertex Colors", description="Import the first vertex colour set as a colour attribute",
                         default=True)
    shape_keys: BoolProperty(name="Shape Keys", description="Import the file's blend shapes (FBX shape keys, glTF "
                             "morph targets) as shape keys", default=True)
    materials: BoolProperty(name="Materials", description="Import the file's materials and their images (Principled "
                            "BSDF node trees as Blender's glTF importer builds them; embedded images packed)",
                            default=True)
    objects: BoolProperty(name="Cameras, Lights, Empties", description="Create the file's cameras, lights and empty "
                          "nodes (locators, markers), each hanging from its parent object, bone or mesh as in the file",
                          default=True)
    join_vertices: BoolProperty(name="Merge Vertices", description="Merge the vertices that are the same in "
                                "everything - position, normal, UVs, colour, shape keys, weights - bit for bit: "
                                "FBX, Collada, .X, OBJ, MD5, Ogre and B3D files give every face corner a vertex of "
                                "its own as read through Assimp, a mesh of separate triangles without this (glTF "
                                "meshes are kept as stored)", default=True)
    file_rest_pose: BoolProperty(name="File Rest Pose", description="When the file's skeleton rest pose differs from "
                                 "the pose the meshes were bound in, pose the armature in the file's rest pose (the "
                                 "armature's own rest position is always the bind pose)", default=True)
    isolate: BoolProperty(name="Safe Load", description="Parse the file in a child process first (one extra "
                          "parse), so a damaged file that would crash the importer, hang it or make it take tens of "
                          "GB cannot take Blender and unsaved work down: it is refused with the reason instead",
                          default=True)
    animations: BoolProperty(name="Animations", description="Import the file's clips as Actions of the armature "
                             "(the first one active, each on a muted NLA track named after it)", default=True)
    armature_from_nodes: BoolProperty(name="Armature Without Skin", description="When no mesh of the file is skinned "
                                      "(an armature exported beside an unweighted mesh), build the armature from the "
                                      "file's nodes that hold no mesh, camera or light, ready for Auto Bind",
                                      default=True)

    @classmethod
    def poll(cls, context):
        if context.mode != "OBJECT":
            cls.poll_message_set("Needs Object mode")
            return False
        return True

    def invoke(self, context, event):
        try:  # offer every extension the library's Assimp reads
            exts = _ops()._load_api(context).import_extensions()
            if exts:
                self.filter_glob = ";".join(exts)
        except Exception:
            pass
        return ImportHelper.invoke(self, context, event)

    def execute(self, context):
        ops = _ops()
        path = bpy.path.abspath(self.filepath)
        if not os.path.isfile(path):
            self.report({"ERROR"}, "Skinkit: no such file: %s" % path)
            return {"CANCELLED"}
        wm = context.window_manager
        st = _ImportState()
        wm.progress_begin(0, 100)
        try:
            api = ops._load_api(context)
            with api.Scene.load(path, isolate=self.isolate, timeout_seconds=SAFE_LOAD_SECONDS,
                                max_memory_mb=safe_load_memory_mb(path),
                                skeleton_from_nodes=self.armature_from_nodes) as scene:
                if self.join_vertices:
                    scene.weld()  # exact (ABI 1.20): Assimp's JoinIdenticalVertices also merges other weights
                wm.progress_update(10)
                self._build(context, scene, path, st)
        except Exception as e:
            _remove_created(st.created, st.datas)
            if st.mats is not None:
                st.mats.discard()
            return ops._fail(self, e)
        finally:
            wm.progress_end()
        for o in context.view_layer.objects:
            o.select_set(False)
        for o in st.created:
            o.select_set(True)
        context.view_layer.objects.active = st.arm_obj if st.arm_obj is not None else (
            st.mesh_objs[0] if st.mesh_objs else None)
        self._report_import(path, st)
        return {"FINISHED"}

    def _build(self, context, scene, path, st):
        """Everything the import makes, into st (its created objects and data blocks are removed on failure)."""
        from mathutils import Matrix

        st.path = path
        st.gltf_doc = _gltf_json(path) if _is_gltf(path) else None  # read once: names as Blender gives them
        st.unnamed = _gltf_unnamed(st.gltf_doc)
        st.left_out = objects_left_out(scene.objects)
        st.frame_offset = clip_frame_offset(path)
        st.obj_axes = _object_axes(path)
        self._armature(scene, path, st)
        st.root = import_root(scene, self.up_axis, Matrix, blender_frame(context)[0])
        for rig in st.rigs:
            rig.arm_obj.matrix_world = st.root @ Matrix(rig.arm_world.tolist())
        for rig in st.rigs if self.objects else ():
            made = _holder_empties(context, scene, st, rig, st.holder_objs)
            st.created += [o for n, o in made.items() if n not in st.holder_objs]
            st.holder_objs.update(made)
        if self.materials:
            from . import import_materials

            st.mats = import_materials.MaterialReader(scene, path)
        objects = _object_parts(scene)
        for k, ms in enumerate(objects):
            self._mesh_object(context, scene, ms, st)
            context.window_manager.progress_update(10 + int(90 * (k + 1) / max(len(objects), 1)))
        if self.objects and scene.objects:
            from . import import_objects

            sk = scene.skeleton  # joint -> bone; "" an armature node (the armature object), None a root above it
            nodes = {rig.arm_joint for rig in st.rigs}
            bones = {n: ("" if j in nodes else b) for j, (n, b) in enumerate(zip(sk.names, st.bone_names))} \
                if sk is not None else {}
            rigs = {sk.names[j]: (st.rigs[r].arm_obj, st.rigs[r].arm_world)
                    for j, r in enumerate(st.rig_of) if r >= 0} if len(st.rigs) > 1 else None
            by_node = {scene.mesh_node_name(k): o for k, o in zip(st.mesh_index, st.mesh_objs)}
            objs, datas, lost, actions = import_objects.import_objects(context, scene, st.root, st.arm_obj, bones,
                                                                       by_node, self.animations, st.arm_world,
                                                                       st.binds, st.frame_offset,
                                                                       st.holder_objs,
                                                                       _is_gltf(path), rigs)
            st.created += objs
            st.datas += datas + actions
            st.object_actions = [a.name for a in actions]
            st.made_objects, st.made_names, st.objects_lost = import_objects.summary(objs, lost), [
                o.name for o in objs], bool(lost)
            st.left_out = ""  # every object was made
        if st.arm_obj is not None and self.animations and scene.animation_count:
            st.clip_actions, st.clip_note = _import_rig_clips(context, scene, st)
        st.custom_props = _apply_custom_props(scene, st)
        if st.shaped and self.animations and scene.animation_count:
            from . import import_anim

            st.shape_actions = import_anim.import_shape_key_clips(context, scene, st.shaped, st.frame_offset)
            st.datas += st.shape_actions

    def _armature(self, scene, path, st):
        """The armatures of the file's skeleton in the file's world (_world_binds): an armature object at each of the
        file's armature nodes (several when the file holds several characters: _armature_nodes), the bones' rest the
        bind pose there (posed to the file's rest pose with File Rest Pose when the two differ). st.arm_obj and the
        like are the first's."""
        np = _np()
        sk = scene.skeleton
        if sk is None:
            return
        rest = sk.rest_world.astype(np.float64)
        stem = os.path.splitext(os.path.basename(path))[0] or "skinkit"
        parents = sk.parents.tolist()
        deform = _listed_tops(parents, scene.deform_joints(), _bound_sets(scene))
        found = _armature_nodes(parents, deform, rest, _bound_sets(scene))
        if len(found) == 1:
            names = [_armature_name(sk.names, parents, deform, stem, path)]
        else:
            names = [stem if _made_up(sk.names[node], path) else sk.names[node] for node, _kept in found]
        if _is_gltf(path):  # Blender's glTF importer: an unnamed armature node or none takes its skin's name
            names = [_gltf_armature_name(st.gltf_doc, sk.names, node, kept) or name
                     for (node, kept), name in zip(found, names)]
        st.bone_names, st.rig_of = [None] * len(sk.names), [-1] * len(sk.names)
        for r, ((node, kept), name) in enumerate(zip(found, names)):
            st.rigs.append(self._rig(scene, rest, node, kept, name, st))
            for j in kept + ([node] if node >= 0 else []):
                st.rig_of[j] = r
        first = st.rigs[0]
        st.arm_obj, st.arm_joint, st.arm_world, st.bind_world = (first.arm_obj, first.arm_joint, first.arm_world,
                                                                 first.bind_world)
        st.binds = first.binds.copy()
        for rig in st.rigs[1:]:
            own = [j for j, r in enumerate(st.rig_of) if r >= 0 and st.rigs[r] is rig]
            st.binds[own] = rig.binds[own]

    def _rig(self, scene, rest, node, kept, name, st):
        """One armature object (_Rig) at armature node `node` (-1: none) with the joints kept as bones."""
        np = _np()
        from . import bridge

        sk = scene.skeleton
        parents = sk.parents.tolist()
        bind_world, binds = _world_binds(scene, node)
        # the armature object's own axes as Blender's importers give them (_object_axes: a glTF's turned to Z up)
        arm_world = (rest[node] if node >= 0 else np.identity(4)) @ st.obj_axes
        extent = max(float(np.ptp(binds[kept, :3, 3], axis=0).max()), 1e-6)
        differs = np.abs(binds[kept] - rest[kept]).max() > 1e-5 * max(extent, 1.0)
        pose = rest if self.file_rest_pose and differs else None
        space = np.linalg.inv(arm_world)  # the file's world -> the armature object's
        index = {j: k for k, j in enumerate(kept)}
        arm_obj, bones = bridge.armature_from_skeleton(
            name, [_blender_name(sk.names[j], "node", "Node_", st.unnamed[0]) for j in kept],
            [index.get(parents[j], -1) for j in kept], space @ binds[kept],
            None if pose is None else space @ pose[kept], sk.tails[kept])
        for k, j in enumerate(kept):
            st.bone_names[j] = bones[k]
        st.created.append(arm_obj)
        st.datas.append(arm_obj.data)
        return _Rig(arm_obj, node, arm_world, bind_world, binds)

    def _mesh_rig(self, scene, m, st):
        """The rig (_Rig) a mesh goes to: the one whose joints its skin binds, or the one of the joint it hangs from;
        the first when neither says."""
        np = _np()
        if len(st.rigs) < 2:
            return st.rigs[0] if st.rigs else None
        if scene.mesh_skin(m) is not None:
            bound = np.nonzero(np.asarray(scene.mesh_inverse_binds(m)[1], bool))[0]
            owners = [st.rig_of[j] for j in bound.tolist() if st.rig_of[j] >= 0]
        else:
            pj = scene.mesh_parent_joint(m)
            owners = [st.rig_of[pj]] if pj is not None and st.rig_of[pj] >= 0 else []
        return st.rigs[owners[0]] if owners else st.rigs[0]

    def _mesh_object(self, context, scene, ms, st):
        """Meshes ms (the parts of one object: _object_parts) as one object: their streams, a material slot per
        material of their parts (in the order they come), vertex groups and Armature modifier, under the armature.
        An unskinned mesh's object sits at its node's transform (its origin, as Blender's importers place it) with
        its vertices in that node's space; a rigid attachment (a sword the file hangs from a bone) is a child of its
        bone without vertex groups or modifier, as Blender's importers parent it (_Placement)."""
        np = _np()

        from . import bridge

        # under the armature object: skinned, or hanging from the armature node (or a joint that is a bone); else at
        # the top level, as Blender's importers leave a free mesh (or one under a root above the armature node)
        skinned = scene.mesh_skin(ms[0]) is not None
        pj = None if skinned else scene.mesh_parent_joint(ms[0])
        rig = self._mesh_rig(scene, ms[0], st)
        arm_obj = rig.arm_obj if rig is not None else None
        under = arm_obj is not None and (skinned or pj == rig.arm_joint or
                                         (pj is not None and st.bone_names[pj] is not None))
        # vertices: the bind space -> the file's world (X) -> the armature object's space (a mesh without a skin is
        # read in the file's world: the library places it there)
        space = None if not under else np.linalg.inv(rig.arm_world) @ (rig.bind_world if skinned else np.eye(4))
        sk = scene.skeleton
        bind = sk.bind.astype(np.float64) if sk is not None and arm_obj is not None else None
        fixes = [_own_binds(scene, k, bind) if bind is not None else None for k in ms]
        holder = st.holder_objs.get(scene.skeleton.names[pj]) if pj is not None and not under else None
        at = _Placement(scene, ms, fixes, space, st.bone_names if arm_obj is not None else (),
                        None if under or holder is not None else st.root, st.obj_axes)
        parts = _joined_parts(scene, ms, self.custom_normals, self.uvs, self.colors, fixes)
        if parts is None:
            return
        m = ms[0]
        tri_mat = parts["materials"] if st.mats is not None else np.zeros(0, np.int64)
        order = [int(k) for k in dict.fromkeys(tri_mat.tolist()) if k >= 0]  # the parts' materials, a slot each
        slot = np.zeros(max(order, default=0) + 2, np.int32)  # material + 1 -> slot (none: the first)
        slot[np.array(order, np.int64) + 1] = np.arange(len(order))
        me = bridge.mesh_from_arrays(_mesh_data_name(scene, ms, st), _points_to(at.vertices, parts["positions"]),
                                     parts["triangles"], uv=parts["uv0"],
                                     normals=_normals_to(at.vertices, parts["normals"]),
                                     uv1=parts["uv1"], colors=parts["colors"],
                                     slots=slot[tri_mat + 1] if len(order) > 1 else None)
        st.datas.append(me)
        for k in order:
            me.materials.append(st.mats.material(k))
        obj = bpy.data.objects.new(_object_name(scene, m, me.name), me)
        context.collection.objects.link(obj)
        st.created.append(obj)
        st.mesh_objs.append(obj)
        st.mesh_index.append(m)
        if self.shape_keys:
            morphs = [(n, w, _points_to(at.vertices, p))
                      for n, w, p in _joined_morphs(scene, ms, parts["positions"], fixes)]
            st.shape_keys += _add_shape_keys(obj, morphs)
            if morphs:
                st.shaped.append((obj, list(ms)))
        if parts["skin"] is not None and arm_obj is not None and at.bone is None:
            st.weighted += _add_vertex_groups(obj, parts["skin"], st.bone_names, scene.skeleton.names)
            mod = obj.modifiers.new(name=arm_obj.name, type="ARMATURE")
            mod.object = arm_obj
        at.apply(obj, arm_obj if under or at.bone is not None else holder, st.root)

    def _report_import(self, path, st):
        """LAST_IMPORT and the report: counts of what was made, then the notes (a warning when there are any)."""
        notes = list(st.mats.notes) if st.mats is not None else []  # what of the materials could not be carried
        LAST_IMPORT.clear()
        LAST_IMPORT.update(path=path, armature=st.arm_obj.name if st.arm_obj is not None else None,
                           armatures=[r.arm_obj.name for r in st.rigs],
                           meshes=[o.name for o in st.mesh_objs], bones=[b for b in st.bone_names if b is not None],
                           left_out=st.left_out, root=[list(r) for r in st.root] if st.root is not None else None,
                           bind_world=st.bind_world.tolist() if st.bind_world is not None else None,
                           frame_offset=st.frame_offset,
                           materials=st.mats.names if st.mats is not None else [], material_notes=notes,
                           actions=[a.name for a in st.clip_actions], clip_note=st.clip_note, objects=st.made_names,
                           object_actions=st.object_actions, shape_keys=st.shape_keys,
                           shape_actions=[a.name for a in st.shape_actions], custom_props=st.custom_props)
        msg = "%s: %d meshes (%d vertices, %d weighted), %d bones" % (
            os.path.basename(path), len(st.mesh_objs), sum(len(o.data.vertices) for o in st.mesh_objs), st.weighted,
            sum(b is not None for b in st.bone_names))
        if len(st.rigs) > 1:
            msg += " in %d armatures" % len(st.rigs)
        if st.shape_keys:
            msg += ", %d shape keys" % st.shape_keys
        if st.shape_actions:
            msg += " (keyed in %d clip actions)" % len(st.shape_actions)
        if st.clip_actions:
            msg += ", %d clips as actions" % len(st.clip_actions)
        if st.mats is not None:
            msg += ", %d materials" % len(st.mats.materials)
        if st.made_objects:
            msg += ", " + st.made_objects
        if st.object_actions:
            msg += " (%d of them keyed in clips)" % len(st.object_actions)
        tail = ([st.clip_note] if st.clip_note else []) + notes + ([st.left_out] if st.left_out else [])
        warn = bool(st.left_out or notes or st.objects_lost)
        self.report({"WARNING"} if warn else {"INFO"}, "; ".join([msg] + tail))


_MADE_UP_ROOTS = ("rootnode", "root", "scene", "z_up", "y_up")


def _apply_material_props(scene, st):
    """The materials' custom properties (api.Scene.material_props, ABI 1.18: an FBX's Material user properties, a
    glTF's material extras) on the Blender materials made of them, as Blender's FBX and glTF importers set them.
    Returns how many were set."""
    made = st.mats.materials if st.mats is not None else {}
    if not made:
        return 0
    by_name = {}
    names = scene.material_names
    for k, mat in made.items():
        if 0 <= k < len(names):
            by_name.setdefault(names[k], mat)
    return _set_props(by_name, scene.material_props())


def _apply_mesh_props(scene, st):
    """The meshes' custom properties (api.Scene.mesh_props, ABI 1.19: an FBX's Geometry user properties, a glTF's mesh
    extras, by the file's mesh name) on the mesh data blocks made of them, as Blender's FBX and glTF importers set
    them: a glTF mesh of several primitives, read as parts "<mesh>-<i>", by its own name. Returns how many."""
    by_name = {}
    for obj, m in zip(st.mesh_objs, st.mesh_index):
        name = scene.mesh_name(m) or ""
        by_name.setdefault(name, obj.data)
        if _is_gltf(st.path):
            by_name.setdefault(_part_base(name), obj.data)
    return _set_props(by_name, scene.mesh_props()) if by_name else 0


def _set_props(by_name, props):
    """Sets each (owner name, key, value) of props on the data block by_name gives for the owner, unless it has that
    key already (a tuple as a list). Returns how many were set."""
    n = 0
    for name, key, value in props:
        block = by_name.get(name)
        if block is not None and key not in block.keys():
            block[key] = list(value) if isinstance(value, tuple) else value
            n += 1
    return n


def _apply_custom_props(scene, st):
    """The file's nodes' custom properties (api.Scene.custom_props: an FBX's user properties, a glTF's node extras) on
    the objects made of those nodes - the armature object, mesh objects, empties, cameras, lights - and on the bones
    (data bone and pose bone), the materials' on the materials made (_apply_material_props) and the meshes' on the
    mesh data (_apply_mesh_props), as Blender's FBX and glTF importers set them. Returns how many were set."""
    n = _apply_material_props(scene, st) + _apply_mesh_props(scene, st)
    props = scene.custom_props()
    if not props:
        return n
    by_node = {}
    sk = scene.skeleton
    for rig in st.rigs if sk is not None else ():
        if rig.arm_joint >= 0:
            by_node[sk.names[rig.arm_joint]] = rig.arm_obj
    for m, obj in zip(st.mesh_index, st.mesh_objs):
        by_node.setdefault(scene.mesh_node_name(m), obj)
    for obj in st.created:
        if obj is not None and obj.type in ("EMPTY", "CAMERA", "LIGHT"):
            by_node.setdefault(obj.name, obj)
    bones = {}  # a joint made a bone: its properties on the bone and its pose bone, as Blender's glTF importer sets
    for j, bone in enumerate(st.bone_names if st.arm_obj is not None and sk is not None else ()):
        if bone is not None and st.rig_of[j] >= 0:
            bones.setdefault(sk.names[j], (st.rigs[st.rig_of[j]].arm_obj, bone))
    for node, key, value in props:
        value = list(value) if isinstance(value, tuple) else value
        obj = by_node.get(node)
        if obj is not None and key not in obj.keys():
            obj[key] = value
            n += 1
        elif obj is None and node in bones:
            arm_obj, name = bones[node]
            bone, pose = arm_obj.data.bones[name], arm_obj.pose.bones[name]
            if key not in bone.keys():
                bone[key] = pose[key] = value
                n += 1
    return n


def _holder_empties(context, scene, st, rig, made_before):
    """{joint name: empty} for the file's nodes above rig's armature node up to (not with) an importer's made-up root
    (a "Mover" empty holding the rig, as Blender's importers make it): empties at their rest world, each under the
    one above it, the armature object under the lowest; those in made_before (another rig's) are taken, not made
    again. None are made when a clip moves any of them (their motion is then the root bones'), or without an
    armature node."""
    from mathutils import Matrix

    np = _np()
    sk = scene.skeleton
    if rig.arm_joint < 0 or sk is None:
        return {}
    names, parents = sk.names, [int(p) for p in sk.parents]
    chain = []
    p = parents[rig.arm_joint]
    while 0 <= p and p not in chain and not _made_up(names[p], st.path):
        chain.append(p)
        p = parents[p]
    if not chain or p >= 0 and not _made_up(names[p], st.path):
        return {}
    if _moved_joints(scene, chain):
        return {}
    rest_world = sk.rest_world.astype(np.float64)
    made, above = {}, None
    for j in reversed(chain):  # the top one first
        if names[j] in made_before:
            made[names[j]] = above = made_before[names[j]]
            continue
        obj = _new_empty(context, names[j])
        obj.matrix_world = st.root @ Matrix(rest_world[j].tolist())
        if above is not None:
            world = obj.matrix_world.copy()
            obj.parent = above
            obj.matrix_parent_inverse = Matrix.Identity(4)
            obj.matrix_basis = above.matrix_world.inverted() @ world
        context.view_layer.update()
        made[names[j]] = above = obj
    world = rig.arm_obj.matrix_world.copy()
    rig.arm_obj.parent = above
    rig.arm_obj.matrix_parent_inverse = Matrix.Identity(4)
    rig.arm_obj.matrix_basis = above.matrix_world.inverted() @ world
    return made


def _made_up(name, path=None):
    """Whether a node is an importer's made-up root (Assimp's RootNode, <MD5_Root>, Z_UP, ...) or has no name. With the
    file's path, the names a format's reader cannot have made up are the file's own: none in glTF (skinkit's reader
    adds no node), only Assimp's "RootNode" in FBX (a Model named "root" or "Scene" is the file's)."""
    ext = os.path.splitext(path)[1].lower() if path else ""
    if ext in (".glb", ".gltf", ".vrm"):
        return not name
    if ext == ".fbx":
        return not name or name == "RootNode" or (name.startswith("<") and name.endswith(">"))
    return not name or (name.startswith("<") and name.endswith(">")) or name.lower() in _MADE_UP_ROOTS


def _gltf_json(path):
    """The JSON of a .glb or .gltf file as a dict, or None when it cannot be read (also when nested deeper than
    Python's recursion limit, which the library's reader, at 1000 levels, may accept: the names then fall back)."""
    import json
    import struct

    try:
        with open(path, "rb") as f:
            head = f.read(20)
            if head[:4] == b"glTF" and len(head) == 20 and head[16:20] == b"JSON":
                return json.loads(f.read(struct.unpack("<I", head[12:16])[0]))
            return json.loads(head + f.read())
    except (OSError, ValueError, RecursionError, struct.error):
        return None


def _gltf_unnamed(doc):
    """(indices of the nodes, of the meshes) a glTF document (_gltf_json) leaves unnamed, which skinkit's reader calls
    "node<i>" and "mesh<i>" and Blender's glTF importer "Node_<i>" and "Mesh_<i>"; empty without a document."""
    if not isinstance(doc, dict):
        return (), ()

    def unnamed(key):
        items = doc.get(key) if isinstance(doc.get(key), list) else []
        return {i for i, it in enumerate(items) if not (isinstance(it, dict) and isinstance(it.get("name"), str)
                                                         and it.get("name"))}

    return unnamed("nodes"), unnamed("meshes")


def _mesh_data_name(scene, ms, st):
    """The name of the mesh data made of the file's meshes ms (one object's parts): the mesh's name, without the
    "-<primitive>" the glTF reader gives each part of a mesh of several primitives ("Cylinder", not "Cylinder-0", as
    Blender's glTF importer names it), an unnamed glTF mesh's as Blender names it (_blender_name)."""
    name = scene.mesh_name(ms[0]) or ("mesh%d" % ms[0])
    if len(ms) > 1 and _is_gltf(st.path):
        bases = {_part_base(scene.mesh_name(k) or "") for k in ms}
        if len(bases) == 1 and _part_base(name) != name:
            name = bases.pop() or name
    return _blender_name(name, "mesh", "Mesh_", st.unnamed[1])


def _part_base(name):
    """A glTF mesh's name from the name skinkit's reader gives one of its primitives ("Cylinder" of "Cylinder-0")."""
    return re.sub(r"-\d+$", "", name)


def _blender_name(name, ours, blenders, unnamed):
    """name with skinkit's fallback for an unnamed glTF item ("node3") made Blender's ("Node_3") when item 3 is in
    unnamed; else name."""
    if name and name.startswith(ours) and name[len(ours):].isdigit() and int(name[len(ours):]) in unnamed:
        return blenders + name[len(ours):]
    return name


def _gltf_armature_name(doc, names, node, kept):
    """The name Blender's glTF importer gives the armature of joints `kept` under armature node `node` (-1: none) of
    the glTF document doc (_gltf_json): the node's own name when it has one, else the name of the last skin listing
    one of those joints, else "Armature"; None without a document (the caller keeps its name)."""
    if not isinstance(doc, dict):
        return None
    nodes = doc.get("nodes") if isinstance(doc.get("nodes"), list) else []
    own = [n.get("name") if isinstance(n, dict) and isinstance(n.get("name"), str) else None for n in nodes]
    if node >= 0 and names[node] in own:
        return names[node]
    mine = {names[j] for j in kept}
    name = None
    for skin in doc.get("skins") if isinstance(doc.get("skins"), list) else []:
        joints = skin.get("joints") if isinstance(skin, dict) and isinstance(skin.get("joints"), list) else []
        listed = {own[i] or "node%d" % i for i in joints if isinstance(i, int) and 0 <= i < len(own)}
        if listed & mine:
            name = skin.get("name") if isinstance(skin.get("name"), str) and skin.get("name") else "Armature"
    return name or "Armature"


def _object_axes(path):
    """An object's own axes in the file's frame as Blender's importers give them (4x4): a glTF object's turned from Y
    up to Z up like its place (Blender's glTF importer reads node T as C^-1 T C, C: (x, y, z) -> (x, z, -y), its data
    C^-1 v; import_objects.GLTF_EMPTY_AXES for empties), so the object reads Blender's rotation, not the root's 90
    degrees about X times it; the identity for FBX (its importer turns only the top nodes, whose data Blender's
    exporter leaves in the object's own Z-up axes) and Collada (a Z_UP document's numbers as they are)."""
    from . import import_objects

    np = _np()
    return np.array(import_objects.GLTF_EMPTY_AXES, np.float64) if _is_gltf(path) else np.identity(4)


def _is_gltf(path):  # a .vrm avatar is a .glb by another name
    return os.path.splitext(path)[1].lower() in (".glb", ".gltf", ".vrm")


def _moved_joints(scene, joints):
    """The joints of `joints` some clip of scene moves off their rest (local TRS, sampled at every key time)."""
    np = _np()
    if not scene.animation_count or not joints:
        return set()
    sk = scene.skeleton
    rest = sk.rest_trs(allow_shear=True).astype(np.float64).reshape(sk.joint_count, -1)
    moved = set()
    for a in range(scene.animation_count):
        for t in scene.animation_key_times(a):
            pose = np.asarray(scene.sample_pose(a, float(t)), np.float64).reshape(sk.joint_count, -1)
            moved.update(j for j in joints if np.abs(pose[j] - rest[j]).max() > 1e-6 * max(np.abs(rest[j]).max(), 1.0))
    return moved


def _new_empty(context, name):
    """A plain-axes empty (Blender's importers' kind) named name, linked to the active collection."""
    obj = bpy.data.objects.new(name, None)
    obj.empty_display_type = "PLAIN_AXES"
    context.collection.objects.link(obj)
    return obj


class _Rig:
    """One armature object the import made: at joint arm_joint (its armature node; -1: none) whose rest world is
    arm_world; bind_world and binds as _world_binds gives them for that node."""

    def __init__(self, arm_obj, arm_joint, arm_world, bind_world, binds):
        self.arm_obj, self.arm_joint, self.arm_world = arm_obj, arm_joint, arm_world
        self.bind_world, self.binds = bind_world, binds


def _bound_sets(scene):
    """Per skinned mesh, the set of joints its skin lists."""
    np = _np()
    return [set(np.nonzero(np.asarray(scene.mesh_inverse_binds(m)[1], bool))[0].tolist())
            for m in range(scene.mesh_count) if scene.mesh_skin(m) is not None]


def _armature_nodes(parents, deform, rest, bound_sets=()):
    """[(node, kept joints)] for the armatures of a skeleton: one (_armature_node) unless the top deform joints hang
    from several armature nodes - each no deform joint, none below another, no deform joint above any, each one's rest
    world an object's matrix, every joint below one of them or above them, and no skin listing joints below two of
    them (bound_sets) - as in a file of several characters (two armature objects of Blender, two glTF skins under
    their own nodes): then one per node, with the joints below it, as Blender's importers make an armature object of
    each."""
    J = len(parents)
    tops = sorted({int(parents[j]) for j in range(J) if deform[j] and (parents[j] < 0 or not deform[parents[j]])})
    if len(tops) < 2 or tops[0] < 0 or any(deform[t] or not _object_matrix(rest[t]) for t in tops):
        return [_armature_node(parents, deform, rest)]
    rig = [-1] * J
    for j, p in enumerate(parents):  # parents first
        below = rig[p] if 0 <= p < j else -1
        if j in tops and below >= 0:
            return [_armature_node(parents, deform, rest)]  # a node below another
        rig[j] = tops.index(j) if j in tops else below
    above = set()
    for t in tops:
        p = int(parents[t])
        while p >= 0 and p not in above:
            above.add(p)
            p = int(parents[p])
    if any(rig[j] < 0 and (j not in above or deform[j]) for j in range(J)) or \
            any(len({rig[j] for j in joints}) > 1 for joints in bound_sets):
        return [_armature_node(parents, deform, rest)]
    return [(t, [j for j in range(J) if rig[j] == r and j != t]) for r, t in enumerate(tops)]


def _import_rig_clips(context, scene, st):
    """The clips as actions of each armature (import_anim.import_clips, given that armature's bones): (actions,
    note). With several armatures each gets an action of each clip that keys its joints (or a node above it), as
    Blender's importers make them, named "<clip>_<armature>"; a clip that keys none of any armature is noted."""
    from . import import_anim

    if len(st.rigs) == 1:
        return import_anim.import_clips(context, scene, st.arm_obj, st.bone_names, st.arm_world, st.binds,
                                        st.frame_offset)
    actions, notes, keyed = [], [], []
    parents = [int(p) for p in scene.skeleton.parents]
    masks = [scene.animation_keyed_joints(a) for a in range(scene.animation_count)]
    for r, rig in enumerate(st.rigs):
        own = [b if st.rig_of[j] == r else None for j, b in enumerate(st.bone_names)]
        if not any(b is not None for b in own):
            continue
        moving = [j for j, o in enumerate(st.rig_of) if o == r]  # its joints and those above its armature node
        p = parents[rig.arm_joint] if rig.arm_joint >= 0 else -1
        while p >= 0 and p not in moving:
            moving.append(p)
            p = parents[p]
        only = [a for a, m in enumerate(masks) if m is not None and m[moving].any()]
        made, note = import_anim.import_clips(context, scene, rig.arm_obj, own, rig.arm_world, st.binds,
                                              st.frame_offset, suffix="_" + rig.arm_obj.name, keyed=keyed,
                                              only=only)
        actions += made
        notes += [n for n in (note or "").split("; ") if n and not n.startswith("clips that key no bone")]
    left = [scene.animation_name(a) or "clip%d" % a for a in range(scene.animation_count)
            if (scene.animation_name(a) or "clip%d" % a) not in keyed]
    if left:
        notes.insert(0, "clips that key no bone left out: %s" % ", ".join(left))
    return actions, "; ".join(notes) or None


def _armature_node(parents, deform, rest):
    """(node, kept joints) for the armature of a skeleton: node = the file's armature node - the one joint above
    every top deform joint, no deform joint itself nor above one - which becomes the armature object (at its rest
    world) rather than a bone, it and the joints above it (the scene root, an importer's made-up root) left out of
    the bones, as Blender's FBX and glTF importers build the armature. (-1, every joint) when there is no such node
    or its rest world cannot be an object's matrix."""
    J = len(parents)
    tops = {int(parents[j]) for j in range(J) if deform[j] and (parents[j] < 0 or not deform[parents[j]])}
    node = tops.pop() if len(tops) == 1 else -1
    above = set()
    p = node
    while p >= 0 and p not in above:
        above.add(p)
        p = int(parents[p])
    if node < 0 or p >= 0 or any(deform[a] for a in above) or not _object_matrix(rest[node]):
        return -1, list(range(J))
    return node, [j for j in range(J) if j not in above]


def _listed_tops(parents, deform, bound_sets):
    """deform, with each joint a skin lists whose parent no skin lists counted in: a bone to Blender's importers (every
    joint of a glTF skin, every bone of an FBX with a cluster), never the armature object. A production rig's "root"
    control bone above the deform bones, which no vertex weights, is no deform joint for the library (it takes the
    name for an importer's "ROOT" wrapper, so that bind gives it no weight), and it became the armature object - named
    "root", the file's armature node ("Rig") an extra empty above it and the bone gone (the session 73 scene audit)."""
    listed = [False] * len(parents)
    for joints in bound_sets:
        for j in joints:
            listed[j] = True
    return [bool(deform[j]) or (listed[j] and 0 <= p < len(parents) and not listed[p]) for j, p in enumerate(parents)]


def _object_matrix(m):
    """Whether the 4x4 m can be an object's matrix: finite, affine, not singular."""
    np = _np()
    scale = float(np.abs(m[:3, :3]).max()) if np.isfinite(m).all() else 0.0
    return bool(scale) and abs(np.linalg.det(m[:3, :3])) > 1e-9 * scale ** 3 and \
        np.abs(m[3] - (0, 0, 0, 1)).max() <= 1e-6


def _world_binds(scene, node):
    """(X, binds): X the 4x4 from the bind space the library reads meshes and bound joints in to the file's world,
    and each joint's bind matrix in the file's world. A file's bind space may be a mesh node's own (Blender's FBX:
    the body's node, in metres under centimetre nodes), where the armature object's node and the joints no skin
    binds have their rest world in the file's world; a quantized glTF (gltfpack) keeps its vertices in integer units
    that its inverse binds scale back. X = rest_r bind_r^-1 of a top bound joint r (under the armature node when
    there is one; the identity when there is none, or when X is singular) - unless the file says where its meshes
    were bound (_file_bind_world: an FBX mesh's node, the bind pose of a file saved in a frame of its animation; a
    posed glTF skin's armature node); a bound joint's bind is X bind_j, another's its parent's times its local rest
    (its rest world at the top)."""
    np = _np()
    sk = scene.skeleton
    bind, rest = sk.bind.astype(np.float64), sk.rest_world.astype(np.float64)
    parents = [int(p) for p in sk.parents]
    bound = np.zeros(len(parents), bool)
    for m in range(scene.mesh_count):
        if scene.mesh_skin(m) is not None:
            bound |= np.asarray(scene.mesh_inverse_binds(m)[1], bool)
    x = np.identity(4)
    depth = [0] * len(parents)
    for j, p in enumerate(parents):  # parents first
        depth[j] = depth[p] + 1 if 0 <= p < j else 0
    top = sorted((depth[j], j) for j in range(len(parents)) if bound[j] and (node < 0 or parents[j] == node))
    top = [j for _d, j in top[:1]]
    file_x = _file_bind_world(scene, node, parents, bind)
    if file_x is not None:
        x = file_x
    elif top:
        with np.errstate(all="ignore"):
            t = rest[top[0]] @ np.linalg.pinv(bind[top[0]])
        if _object_matrix(t):
            x = t
    out = np.empty_like(bind)
    for j, p in enumerate(parents):  # parents first
        if bound[j]:
            out[j] = x @ bind[j]
        elif 0 <= p < j:
            out[j] = out[p] @ np.linalg.pinv(rest[p]) @ rest[j]
        else:
            out[j] = rest[j]
    return x, out


def _file_bind_world(scene, node, parents, bind):
    """X with X bind_j the bind pose the file declares for joint j (bind: the skeleton's bind matrices), from the
    world transforms of the nodes the file bound its skinned meshes in (Scene.mesh_bind_world: an FBX mesh's node; the
    armature node of a glTF skin whose nodes hold a pose and that names its skeleton, as Blender's glTF importer
    takes it): mesh m gives W_m IB_m(j)^-1 bind_j^-1 for its first bound joint j, and every skinned mesh bound to a
    joint below node (node < 0: any) must have one and give the same X (a body and a hat on nodes of their own do).
    Blender's FBX exporter
    saves the pose of the current frame as the rest pose, so the top joint's rest (the other rule) put the bones and
    the body of an animated export where its root was in that frame (a Blender export of CesiumMan 2.3e-2 of its
    size off at rest). None otherwise."""
    np = _np()
    below = np.zeros(len(parents), bool)
    for j, p in enumerate(parents):  # parents first
        below[j] = node < 0 or p == node or (0 <= p < j and below[p])
    found = None
    for m in range(scene.mesh_count):
        if scene.mesh_skin(m) is None:
            continue
        ib, bound = scene.mesh_inverse_binds(m)
        mine = np.nonzero(np.asarray(bound, bool) & below)[0]
        if not len(mine):
            continue
        w = scene.mesh_bind_world(m)
        if w is None:
            return None
        j = int(mine[0])
        with np.errstate(all="ignore"):
            w = np.asarray(w, np.float64) @ np.linalg.pinv(ib[j].astype(np.float64)) @ np.linalg.pinv(bind[j])
        if found is not None and np.abs(w - found).max() > 1e-4 * max(1.0, float(np.abs(found).max())):
            return None
        found = w if found is None else found
    return found if found is not None and _object_matrix(found) else None


def _armature_name(names, parents, deform, stem, path=None):
    """The armature object's name: the file's armature node - the joint above every top deform joint, itself no deform
    joint (Blender's importers name the armature after it: "Rig", "Armature") - unless it is an importer's made-up
    root (RootNode, <MD5_Root>, Z_UP, ...); else the file's name."""
    tops = {int(parents[j]) for j in range(len(names)) if deform[j] and (parents[j] < 0 or not deform[parents[j]])}
    if len(tops) != 1:
        return stem
    p = tops.pop()
    if p < 0 or deform[p]:
        return stem
    node = names[p]
    if _made_up(node, path):
        return stem
    return node


def _object_parts(scene):
    """The file's meshes grouped into objects: [[mesh, ...]]. Assimp reads an object of several materials (an FBX or
    Collada object) as one mesh per material under one node, and the glTF reader a mesh of several primitives with
    their own vertices as meshes "<mesh>-<primitive>": meshes of one node name and one mesh name (without that
    suffix), all skinned or all not, are one object again, with a material slot per part, as Blender's importers
    make it (an importer's made-up "<...>" node or no node name: a mesh alone)."""
    groups, where = [], {}
    for m in range(scene.mesh_count):
        node = scene.mesh_node_name(m)
        if not node or (node.startswith("<") and node.endswith(">")):
            groups.append([m])
            continue
        key = (node, _part_base(scene.mesh_name(m) or ""), scene.mesh_skin(m) is not None)
        if key in where:
            groups[where[key]].append(m)
        else:
            where[key] = len(groups)
            groups.append([m])
    return groups


def _add_vertex_groups(obj, csr, bone_names, joint_names):
    """obj's vertex groups from the skin csr (offsets, joints, weights): a group per joint weighted, named after its
    bone (its joint's name when it is no bone). Returns how many vertices carry a weight."""
    np = _np()
    from . import bridge

    off, jt, wt = csr
    used = np.unique(jt).tolist()
    groups = [obj.vertex_groups.new(name=bone_names[j] or joint_names[j]).index for j in used]
    remap = np.full(len(bone_names), -1, np.int64)
    remap[used] = np.arange(len(used))
    bridge.csr_to_vertex_groups(obj, off, remap[jt.astype(np.int64)], np.clip(wt, 0.0, 1.0), group_indices=groups)
    return int(np.count_nonzero(np.diff(off.astype(np.int64))))


def _own_binds(scene, m, bind):
    """The 4x4 T taking mesh m's vertices to the skeleton's bind pose (bind: the skeleton's bind matrices, which the
    bones are built from) when the mesh has inverse binds of its own, one T for every joint it binds: T = B_j IB_j. A
    prop the file hangs from a bone is bound at the bone's rest (its inverse bind rest^-1), which is not the bind pose
    when the file's rest pose is another; without T, Blender's Armature modifier moved it by the difference. None
    when there is nothing to do (no skin, T the identity, or the joints disagree)."""
    np = _np()
    if scene.mesh_skin(m) is None:
        return None
    ib, bound = scene.mesh_inverse_binds(m)
    joints = np.nonzero(bound)[0]
    if not len(joints):
        return None
    t = bind[joints] @ np.asarray(ib, np.float64)[joints]
    size = max(float(np.abs(bind[joints, :3, 3]).max()), 1.0)
    if not np.isfinite(t).all() or np.abs(t - t[0]).max() > 1e-5 * size or np.abs(t[0] - np.identity(4)).max() <= 1e-6:
        return None
    return t[0]


def _joined_parts(scene, ms, normals, uvs, colors, fixes):
    """The streams of meshes ms one after the other: positions, triangles (each part's indices past the vertices
    before it), materials (each triangle's, -1 for none: a mesh's parts have their own), normals, uv0, uv1 and
    colours (None when no part has them; a part without them gets zeros, or white for colours, or all the normals
    are left out when one lacks them), skin CSR (None when no part is skinned). fixes: per mesh a 4x4 its positions
    and normals are taken by first (_own_binds), or None. None when there is no vertex."""
    np = _np()
    from . import bridge

    pos = [scene.mesh_positions(m) for m in ms]
    pos = [np.zeros((0, 3), np.float32) if p is None else _points_to(f, np.asarray(p, np.float32))
           for p, f in zip(pos, fixes)]
    counts = [len(p) for p in pos]
    if not sum(counts):
        return None
    base = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    tris = [np.asarray(scene.mesh_triangles(m), np.int64).reshape(-1, 3) for m in ms]
    materials = []  # per triangle: its part's material (-1: none), each mesh's parts in turn
    for m, t in zip(ms, tris):
        per = np.full(len(t), -1, np.int64)
        for first, count, mat in scene.mesh_parts(m):
            per[first:first + count] = -1 if mat is None else mat
        materials.append(per)
    out = {"positions": np.concatenate(pos), "triangles": np.concatenate([t + b for t, b in zip(tris, base)]),
           "materials": np.concatenate(materials)}

    def stream(read, width, fill, on):
        got = [read(m) if on else None for m in ms]
        if all(g is None for g in got):
            return None
        return np.concatenate([np.full((n, width), fill, np.float32) if g is None else np.asarray(g, np.float32)
                               for g, n in zip(got, counts)])

    nrm = [_normals_to(f, scene.mesh_normals(m)) if normals else None for m, f in zip(ms, fixes)]
    out["normals"] = None if any(n is None for n in nrm) else np.concatenate([np.asarray(n, np.float32) for n in nrm])
    out["uv0"] = stream(scene.mesh_uv0, 2, 0.0, uvs)
    out["uv1"] = stream(scene.mesh_uv1, 2, 0.0, uvs)
    out["colors"] = stream(scene.mesh_colors, 4, 1.0, colors)
    out["skin"] = None
    skins = [scene.mesh_skin(m) for m in ms]
    if any(k is not None for k in skins):
        offs, jts, wts, at = [np.zeros(1, np.int64)], [], [], 0
        for k, n in zip(skins, counts):
            off, jt, wt = bridge.merge_csr_duplicates(*k.to_csr()) if k is not None else (
                np.zeros(n + 1, np.int64), np.zeros(0, np.uint32), np.zeros(0, np.float32))
            offs.append(np.asarray(off, np.int64)[1:] + at)
            at += int(np.asarray(off)[-1])
            jts.append(np.asarray(jt, np.uint32))
            wts.append(np.asarray(wt, np.float32))
        out["skin"] = (np.concatenate(offs), np.concatenate(jts), np.concatenate(wts))
    return out


def _joined_morphs(scene, ms, positions, fixes):
    """[(name, default weight, (V, 3) whole positions)] of the parts' blend shapes by name, in the order they first
    appear; a part without one keeps its own positions there (positions: the joined parts'; fixes as
    _joined_parts)."""
    np = _np()
    per = [{n: (w, _points_to(f, p)) for n, w, p in scene.mesh_morphs(m) or ()} for m, f in zip(ms, fixes)]
    names = []
    for d in per:
        names += [n for n in d if n not in names]
    if not names:
        return []
    counts = [len(scene.mesh_positions(m) if scene.mesh_positions(m) is not None else ()) for m in ms]
    base = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    out = []
    for name in names:
        p = np.array(positions, np.float32, copy=True)
        weight = next(d[name][0] for d in per if name in d)
        for k, d in enumerate(per):
            if name in d:
                p[base[k]:base[k + 1]] = d[name][1]
        out.append((name, weight, p))
    return out


def _points_to(space, pts):
    """(N, 3) float32 points taken by the 4x4 space (None: as they are)."""
    np = _np()
    if space is None or pts is None or np.array_equal(space, np.identity(4)):
        return pts
    p = np.asarray(pts, np.float64)
    return (p @ space[:3, :3].T + space[:3, 3]).astype(np.float32)


def _normals_to(space, nrm):
    """(N, 3) float32 normals taken by the 4x4 space (its inverse transpose, renormalized; None: as they are)."""
    np = _np()
    if space is None or nrm is None or np.array_equal(space, np.identity(4)):
        return nrm
    n = np.asarray(nrm, np.float64) @ np.linalg.inv(space[:3, :3])
    length = np.linalg.norm(n, axis=1, keepdims=True)
    return (n / np.where(length > 0.0, length, 1.0)).astype(np.float32)


class _Placement:
    """Where Import via skinkit puts the object of meshes ms (session 74), as Blender's importers do: at its node's
    transform N (Scene.mesh_node_transform: the library placed an unskinned mesh's vertices with it) with its
    vertices in the node's own space, vertices = inv(N') @ v for the streams _joined_parts gives (N' = fix N, fix
    their _own_binds), so the object keeps its origin; and a rigid attachment whose joint is a bone (bone: its name)
    parented to that bone (parent_type BONE), where it follows the bone in every pose exactly as its one-joint
    Armature modifier made it (Blender's bone parent space is at the bone's tail: matrix_basis = (rest(bone)
    T(0, length, 0))^-1 @ place). place: the object's matrix relative to its former frame (the armature object's, or
    the file's world at the top), space @ N' (space: _mesh_object's). Without N (the identity, a mirror, parts that
    disagree) and bone, vertices = space and place = None: the object as before (at its parent's or root's frame).
    top: the import root when the object goes to the top level, where a node transform Blender cannot hold (a
    shear: no parent inverse to keep it in) leaves the object as before. axes (_object_axes): the object's own axes,
    place @ axes with vertices inv(N' @ axes) (session 75: a glTF's objects kept the file's Y-up axes, the root's 90
    degrees about X in their rotation); a mesh at the top level whose node is the identity takes them too."""

    def __init__(self, scene, ms, fixes, space, bone_names, top, axes=None):
        np = _np()
        got = [scene.mesh_node_transform(k) for k in ms]
        n = got[0][0].astype(np.float64)
        joint = got[0][1]
        fix = fixes[0]
        agree = all(j == joint and np.abs(g.astype(np.float64) - n).max() <= 1e-6 * max(1.0, float(np.abs(n).max()))
                    for g, j in got[1:]) and all(_same_matrix(f, fix) for f in fixes[1:])
        self.bone = bone_names[joint] if agree and joint is not None and joint < len(bone_names) else None
        identity = np.array_equal(n, np.identity(4))
        turned = axes is not None and not np.array_equal(axes, np.identity(4))
        self.vertices, self.place = space, None
        if not agree or (identity and self.bone is None and not (turned and top is not None)):
            return
        n_fixed = (np.identity(4) if fix is None else fix) @ n @ (axes if turned else np.identity(4))
        place = (np.identity(4) if space is None else space) @ n_fixed
        if top is not None and self.bone is None and _trs_split(top @ _matrix(place))[1] is not None:
            return  # a shear at the top level: nowhere to keep it
        try:
            inv = np.linalg.inv(n_fixed)
        except np.linalg.LinAlgError:
            inv = None
        if inv is None or not np.isfinite(inv).all() or not np.isfinite(place).all():
            self.bone = None  # the object as before: vertex groups and modifier on the one-joint skin
            return
        self.vertices, self.place = inv, place

    def apply(self, obj, parent, root):
        """obj's parent and matrices: under parent (the armature object - as its bone's child with self.bone -, an
        empty above the armature, or None: the top level)."""
        from mathutils import Matrix

        np = _np()
        if self.bone is not None:
            obj.parent = parent
            obj.parent_type = "BONE"
            obj.parent_bone = self.bone
            b = parent.data.bones[self.bone]
            tail = np.array(b.matrix_local, np.float64) @ _translation(0.0, b.length, 0.0)
            _set_local(obj, _matrix(np.linalg.inv(tail) @ self.place))
        elif parent is not None and parent.type == "ARMATURE":
            obj.parent = parent
            if self.place is None:
                obj.matrix_parent_inverse = Matrix.Identity(4)
                obj.matrix_basis = Matrix.Identity(4)
            else:
                _set_local(obj, _matrix(self.place))
        elif parent is not None:  # under an empty above the armature (the file's world relative to its world)
            obj.parent = parent
            if self.place is None:
                obj.matrix_parent_inverse = parent.matrix_world.inverted()
                obj.matrix_basis = root
            else:
                _set_local(obj, root @ _matrix(self.place), parent.matrix_world.inverted())
        else:
            obj.matrix_world = root if self.place is None else root @ _matrix(self.place)


def _matrix(m):
    """The mathutils Matrix of a (4, 4) numpy array."""
    from mathutils import Matrix

    return Matrix(_np().asarray(m, _np().float64).tolist())


def _translation(x, y, z):
    np = _np()
    t = np.identity(4)
    t[:3, 3] = (x, y, z)
    return t


def _same_matrix(a, b):
    """Whether two optional 4x4 arrays are both None or equal within 1e-6 (relative)."""
    np = _np()
    if a is None or b is None:
        return a is None and b is None
    return np.abs(a - b).max() <= 1e-6 * max(1.0, float(np.abs(a).max()))


def _trs_split(m):
    """(T, R): T the location / rotation / scale Blender keeps of the 4x4 mathutils Matrix m (an object's
    matrix_basis), R = m T^-1 what it cannot hold (a shear), None when T is m within 1e-6 (relative)."""
    from mathutils import Matrix

    loc, rot, scale = m.decompose()
    t = Matrix.LocRotScale(loc, rot, scale)
    size = max(1.0, max(abs(v) for row in m for v in row))
    if max(abs(a - b) for ra, rb in zip(m, t) for a, b in zip(ra, rb)) <= 1e-6 * size:
        return t, None
    return t, m @ t.inverted()


def _set_local(obj, m, parent_inverse=None):
    """obj's transform relative to its parent = m (a 4x4 mathutils Matrix, after parent_inverse: None the identity):
    matrix_basis the location / rotation / scale of m, as Blender's importers set a child's, and whatever of m those
    cannot hold (a shear under a non-uniformly scaled parent) in matrix_parent_inverse, so every vertex stays put."""
    from mathutils import Matrix

    t, rest = _trs_split(m)
    inverse = Matrix.Identity(4) if parent_inverse is None else parent_inverse
    obj.matrix_parent_inverse = inverse if rest is None else inverse @ rest
    obj.matrix_basis = t


def _object_name(scene, m, mesh_name):
    """The object's name for mesh m: its node's in the file (an FBX or glTF object "Knight_body" whose mesh data is
    "Cylinder", as Blender's importers name it), else the mesh's (no node name, or an importer's made-up "<...>"
    node)."""
    node = scene.mesh_node_name(m)
    if not node or (node.startswith("<") and node.endswith(">")):
        return mesh_name
    return node


def _add_shape_keys(obj, morphs):
    """The file's blend shapes of a mesh object's data as its shape keys (a "Basis" first): each one's whole
    positions (vertices one to one with the file) and default weight as its value. Returns how many."""
    if not morphs:
        return 0
    obj.shape_key_add(name="Basis", from_mix=False)
    for name, weight, positions in morphs:
        kb = obj.shape_key_add(name=name, from_mix=False)
        kb.data.foreach_set("co", positions.astype("float32").reshape(-1))
        kb.value = min(max(weight, kb.slider_min), kb.slider_max)
    obj.data.update()
    return len(morphs)


class _ImportState:
    """What an Assimp import has made so far (removed again when it fails) and what its report says."""

    def __init__(self):
        self.created, self.datas = [], []
        self.arm_obj, self.bone_names = None, []  # bone_names[j]: joint j's bone, None when it is no bone
        self.arm_joint, self.arm_world = -1, None  # the armature node (the armature object) and its rest world
        self.path = None  # the file read
        self.gltf_doc = None  # a glTF file's JSON (_gltf_json), for the names Blender's importer gives
        self.unnamed = ((), ())  # a glTF's unnamed nodes and meshes (_gltf_unnamed), named as Blender names them
        self.rigs = []  # every armature made (_Rig), the first the one above
        self.rig_of = []  # rig_of[j]: joint j's armature (an index of rigs; its armature node too), -1 none
        self.bind_world, self.binds = None, None  # the bind space -> the file's world; the joints' binds there
        self.frame_offset = 0.0  # added to the clips' key frames (clip_frame_offset)
        self.holder_objs = {}  # joint name -> the empty made of a node above the armature node (_holder_empties)
        self.mesh_objs, self.mesh_index, self.weighted = [], [], 0
        self.mats = None  # import_materials.MaterialReader when Materials is on
        self.root = None
        self.obj_axes = None  # _object_axes of the file
        self.left_out = ""
        self.made_objects, self.made_names, self.objects_lost = "", [], False
        self.clip_actions, self.clip_note = [], None
        self.object_actions = []  # names of the cameras', lights' and empties' actions
        self.shape_keys = 0  # blend shapes made shape keys
        self.shaped = []  # [(object, its scene meshes)] of the objects given shape keys
        self.shape_actions = []  # the shape key actions of the clips (import_anim.import_shape_key_clips)
        self.custom_props = 0  # custom properties set on the objects made (_apply_custom_props)


# ------------------------------------------------------------------------------------------- Assimp export
_EXPORT_FORMATS = {"GLB": (".glb", None), "GLTF": (".gltf", None), "DAE": (".dae", None), "FBX": (".fbx", "fbx"),
                   "FBXA": (".fbx", "fbxa")}


def _split_by_corners(mesh, columns):
    """(src vertex per new vertex, triangles over the new vertices, [values per new vertex] of each of columns, new
    vertex per loop): vertices are split where their loops carry different values of any column ((L, k) per-loop
    arrays: normals, UVs, colours), giving per-vertex streams; new vertices in source vertex order, a vertex's first
    loop's values first. Loose vertices keep zeros. Only the loops that differ from their vertex's first loop are
    sorted (np.unique over every loop took 0.26 s of a 92k-vertex export)."""
    from .bridge import get_ints

    np = _np()
    mesh.calc_loop_triangles()
    lt = get_ints(mesh.loop_triangles, "MeshLoopTriangle", "loops", len(mesh.loop_triangles) * 3).astype(np.int64)
    lv = get_ints(mesh.loops, "MeshLoop", "vertex_index", len(mesh.loops)).astype(np.int64)
    nv = len(mesh.vertices)
    vals = np.column_stack([np.asarray(c, np.float32) for c in columns])
    first = np.full(nv, -1, np.int64)
    first[lv[::-1]] = np.arange(len(lv) - 1, -1, -1)  # each vertex's first loop
    same = (vals == vals[first[lv]]).all(axis=1)
    other = np.nonzero(~same)[0]
    keys = np.column_stack([lv[other].astype(np.float64), vals[other].astype(np.float64)])
    extra, extra_of = np.unique(keys, axis=0, return_inverse=True) if other.size else (keys, other)
    base = np.zeros((nv, vals.shape[1]), np.float32)
    base[first >= 0] = vals[first[first >= 0]]
    src = np.concatenate([np.arange(nv), extra[:, 0].astype(np.int64)])
    order = np.argsort(src, kind="stable")  # a vertex, then its other values (sorted)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    corner = lv.copy()
    corner[other] = nv + np.asarray(extra_of).reshape(-1)
    corner = rank[corner]
    every = np.concatenate([base, extra[:, 1:].astype(np.float32)])[order]
    values, at = [], 0
    for c in columns:
        values.append(every[:, at:at + c.shape[1]])
        at += c.shape[1]
    return src[order], corner[lt].reshape(-1, 3).astype(np.uint32), values, corner


def _loop_uvs(mesh, layer):
    np = _np()
    uv = np.empty(len(mesh.loops) * 2, np.float32)
    layer.data.foreach_get("uv", uv)
    return uv.reshape(-1, 2)


def _loop_colors(mesh):
    """(L, 4) linear RGBA of the mesh's active colour attribute per loop, or None."""
    from .bridge import get_ints

    np = _np()
    ca = getattr(mesh, "color_attributes", None)
    attr = getattr(ca, "active_color", None) if ca is not None else None
    if attr is None and ca is not None and len(ca):
        attr = ca[0]
    if attr is None or attr.domain not in ("POINT", "CORNER"):
        return None
    col = np.empty(len(attr.data) * 4, np.float32)
    attr.data.foreach_get("color", col)
    col = col.reshape(-1, 4)
    if attr.domain == "POINT":
        col = col[get_ints(mesh.loops, "MeshLoop", "vertex_index", len(mesh.loops)).astype(np.int64)]
    return col


def _world_normals(n, mw):
    """Normals (N, 3) under the world matrix mw: its inverse transpose, unit length."""
    np = _np()
    n = np.asarray(n, np.float64) @ np.linalg.inv(mw[:3, :3])
    return n / np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-12)


def _object_streams(obj, normals, uvs, mw):
    """(world positions (V, 3), src vertex per written vertex, triangles over the written vertices, {"normals", "uv0",
    "uv1", "colors": per written vertex or None}, written vertex per loop or None) of a mesh object's base mesh placed
    by the world matrix mw; vertices split where their corners differ, as Blender's glTF exporter splits them: the
    corner normals (flat faces, sharp edges, custom normals: per-vertex normals lost them), the active UV layer (uv0),
    the first other one (uv1), the active colour attribute."""
    np = _np()
    from . import bridge

    me = obj.data
    pos = bridge.mesh_positions(me).astype(np.float64) @ mw[:3, :3].T + mw[:3, 3]
    # first: Blender 3.4 computes them into a new loop layer, which moves the others (a UV layer taken before then
    # read the normals' memory)
    corner_normals = bridge.loop_normals(me) if normals and len(me.loops) else None
    active = me.uv_layers.active if uvs else None
    other = next((layer for layer in me.uv_layers if active is not None and layer.name != active.name), None)
    named = [("normals", corner_normals), ("uv0", _loop_uvs(me, active) if active is not None else None),
             ("uv1", _loop_uvs(me, other) if other is not None else None), ("colors", _loop_colors(me))]
    named = [(k, c) for k, c in named if c is not None and len(c) == len(me.loops)]
    streams = {"normals": None, "uv0": None, "uv1": None, "colors": None}
    corner = None
    if named:
        src, tri, values, corner = _split_by_corners(me, [c for _, c in named])
        streams.update((k, v) for (k, _), v in zip(named, values))
    else:
        src, tri = np.arange(len(me.vertices)), bridge.mesh_triangles(me)
    if normals and streams["normals"] is None:  # no face: the vertex normals
        streams["normals"] = bridge.mesh_normals(me)
    if streams["normals"] is not None:
        loose = np.ones(len(src), bool)
        if corner is not None:
            loose[corner] = False
        n = streams["normals"].astype(np.float64)
        n[loose] = bridge.mesh_normals(me)[src[loose]]  # a loose vertex has no corner
        streams["normals"] = _world_normals(n, mw).astype(np.float32)
    return pos, src, tri, streams, corner


def _shape_keys(obj, normals, mw=None, src=None, corner=None):
    """([(name, value, world positions (V, 3))], [world normals per written vertex] or None) of a mesh object's shape
    keys (placed by the world matrix mw), as Blender's glTF exporter takes them: every key but those that are their
    own relative key (the Basis) and the muted ones, whole positions (the library writes the offsets from the mesh).
    The normals are the keys' corner normals on the written vertices (src, corner: _object_streams'), the vertex
    normals where a written vertex has no corner."""
    np = _np()
    keys = obj.data.shape_keys
    blocks = [kb for kb in (keys.key_blocks if keys is not None else []) if kb != kb.relative_key and not kb.mute]
    if not blocks:
        return [], None
    mw = np.array(obj.matrix_world, np.float64) if mw is None else mw
    shapes, nrms = [], []
    for kb in blocks:
        co = np.empty(len(kb.data) * 3, np.float32)
        kb.data.foreach_get("co", co)
        shapes.append((kb.name, kb.value, co.reshape(-1, 3).astype(np.float64) @ mw[:3, :3].T + mw[:3, 3]))
        if normals:
            n = np.array(kb.normals_vertex_get(), np.float64).reshape(-1, 3)
            n = n[src] if src is not None else n
            if corner is not None:
                n[corner] = np.array(kb.normals_split_get(), np.float64).reshape(-1, 3)
            nrms.append(_world_normals(n, mw))
    return shapes, (nrms if normals else None)


def _anchor_unweighted(csr, joint):
    """csr with each vertex that carries no positive weight given weight 1 on joint (the armature object's node:
    Blender's Armature modifier leaves such a vertex where its object puts it, and a glTF skin must weight every
    vertex; Blender's glTF exporter does the same)."""
    np = _np()
    off, jt, wt = (np.asarray(a) for a in csr[:3])
    rows = np.repeat(np.arange(len(off) - 1), np.diff(off.astype(np.int64)))
    weighted = np.zeros(len(off) - 1, bool)
    weighted[rows[wt > 0]] = True
    if weighted.all():
        return csr
    add = ~weighted
    counts = np.diff(off.astype(np.int64)) + add
    new_off = np.concatenate([[0], np.cumsum(counts)]).astype(off.dtype)
    new_jt = np.empty(int(new_off[-1]), jt.dtype)
    new_wt = np.empty(int(new_off[-1]), wt.dtype)
    keep = np.ones(len(new_jt), bool)
    keep[new_off[1:][add] - 1] = False  # the last slot of each such row is the anchor
    new_jt[keep], new_wt[keep] = jt, wt
    new_jt[~keep], new_wt[~keep] = joint, 1.0
    return (new_off, new_jt, new_wt) + tuple(csr[3:])


def _with_modifiers(context, obj):
    """A temporary object (linked to the scene) holding obj's mesh with its modifiers applied but the
    Armature ones (the rest shape the skin deforms: a Mirror or Subdivision Surface before or after it), with obj's
    vertex groups (the modifiers carry their weights) and materials; None when obj has no other modifier on in the
    viewport, or has shape keys (applying modifiers drops them: the mesh is written as it is, with a warning)."""
    if not any(m.type != "ARMATURE" and m.show_viewport for m in obj.modifiers):
        return None
    if obj.data.shape_keys is not None and len(obj.data.shape_keys.key_blocks) > 1:
        return None
    armature = [m for m in obj.modifiers if m.type == "ARMATURE" and m.show_viewport]
    for m in armature:
        m.show_viewport = False
    try:
        context.view_layer.update()
        dg = context.evaluated_depsgraph_get()
        me = bpy.data.meshes.new_from_object(obj.evaluated_get(dg), preserve_all_data_layers=True, depsgraph=dg)
    finally:
        for m in armature:
            m.show_viewport = True
        context.view_layer.update()
    tmp = bpy.data.objects.new(obj.name + ".skinkit_applied", me)
    for g in obj.vertex_groups:  # the same order: the mesh's weights refer to groups by index
        tmp.vertex_groups.new(name=g.name)
    context.scene.collection.objects.link(tmp)  # in the scene for the operator's call only (_remove_applied)
    tmp.matrix_world = obj.matrix_world
    return tmp


def _remove_applied(tmp):
    """Removes a _with_modifiers object and its mesh."""
    if tmp is None:
        return
    me = tmp.data
    bpy.data.objects.remove(tmp, do_unlink=True)
    if me.users == 0:
        bpy.data.meshes.remove(me)


def _write_object(api, scene, obj, names, mats, normals=True, uvs=True, shape_keys=True, world=None, rigid=None,
                  anchor=None, name=None, mesh_name=None):
    """Adds a mesh object to the scene: one mesh, or one per material its faces use (node_name = the object's name,
    so the writers keep one object whose parts have their materials), with its shape keys as blend shapes. names:
    the skeleton's joints (None = no skeleton); world: where it is placed (None: its matrix_world); rigid: the joint
    a mesh without weights of its own follows (weight 1: a prop under a bone, export_attach.py); anchor: the joint
    its vertices without weight get weight 1 on (_anchor_unweighted), or None; name: the object's name written (obj's
    when None), mesh_name: its mesh's (obj's mesh data's when None), as Blender's exporters name the glTF node and
    mesh, the FBX Model and Geometry. Returns 1 when the object was written with a skin, else 0."""
    np = _np()
    from . import bridge, materials

    mw = np.array(obj.matrix_world, np.float64) if world is None else world
    csr = None
    if names is not None and obj.vertex_groups:
        csr = bridge.vertex_groups_to_bone_csr(obj, names)[:3]
        if not csr[1].size:
            csr = None
    if csr is None and names is not None and rigid is not None and rigid in names:
        n = len(obj.data.vertices)
        csr = (np.arange(n + 1, dtype=np.uint32), np.full(n, names.index(rigid), np.uint32), np.ones(n, np.float32))
    if csr is not None and anchor is not None:
        csr = _anchor_unweighted(csr, anchor)
    pos, src, tri, streams, corner = _object_streams(obj, normals, uvs, mw)
    shapes, shape_normals = (_shape_keys(obj, streams["normals"] is not None, mw, src, corner) if shape_keys
                             else ([], None))
    used = materials.triangle_materials(obj, len(tri))  # (materials, part of each triangle) or None
    if used is None or len(used[0]) == 1:
        parts = [(used[0][0] if used else None, None, tri)]
    else:
        split = materials.split_parts(tri, used[1], len(used[0]), len(src))
        parts = [(m, kept, t) for m, (kept, t) in zip(used[0], split)]
    for mat, kept, t in parts:
        s = src if kept is None else src[kept]
        skin = api.Skin.from_csr(*bridge.csr_take(*csr, s), len(names)) if csr is not None else None
        per = {k: (None if v is None else (v if kept is None else v[kept])) for k, v in streams.items()}
        try:
            m = scene.add_mesh(pos[s].astype(np.float32), t, name=mesh_name or obj.data.name, skin=skin,
                               node_name=name or obj.name, **per)
        finally:
            if skin is not None:
                skin.close()
        if mat is not None:
            scene.set_mesh_material(m, mats.material(mat))
        if shapes:
            scene.set_mesh_morphs(m, [(n, w, p[s].astype(np.float32)) for n, w, p in shapes],
                                  None if shape_normals is None else
                                  [(x if kept is None else x[kept]).astype(np.float32) for x in shape_normals])
    return int(csr is not None)


def _export_skeleton(arm, only_deform):
    """(joint names, parents, bind and rest world matrices, wrapped) of the skeleton the export writes for arm: its
    bones (the deforming ones with only_deform) under a first joint named after the armature object and holding its
    world matrix (wrapped), as Blender's FBX and glTF exporters write an armature node - Blender's importers make it
    the armature object again, with its name and transform, rather than a bone or a made-up "Armature" - unless a bone
    bears the object's name (then the bones alone, the object's transform in theirs)."""
    np = _np()
    from . import bridge

    bones, parents, bind = bridge.armature_to_skeleton_arrays(arm, None, only_deform)
    if not bones:
        raise ValueError("armature %s has no %sbones" % (arm.name, "deforming " if only_deform else ""))
    rest = _written_rest(arm, bones)
    if arm.name in arm.data.bones:
        return bones, parents, bind, rest, False
    top = np.array(arm.matrix_world, np.float64)[None]
    parents = np.concatenate([[-1], np.where(parents < 0, 0, parents + 1)]).astype(np.int32)
    return [arm.name] + bones, parents, np.concatenate([top, bind]), np.concatenate([top, rest]), True


class _ExportRig:
    """One armature of several in an export: its joints are the skeleton's [first, first + count), the first its
    object's when wrapped (_export_skeleton)."""

    def __init__(self, arm, first, count, wrapped):
        self.arm, self.first, self.count, self.wrapped = arm, first, count, wrapped


def _export_skeletons(arms, only_deform):
    """(joint names, parents, bind, rest, [_ExportRig]) of one skeleton holding each armature's (_export_skeleton),
    one after another, each its own root (two characters in one file)."""
    np = _np()
    names, parents, bind, rest, rigs = [], [], [], [], []
    for arm in arms:
        j, p, b, r, wrapped = _export_skeleton(arm, only_deform)
        first = len(names)
        rigs.append(_ExportRig(arm, first, len(j), wrapped))
        names += list(j)
        parents.append(np.where(np.asarray(p) < 0, -1, np.asarray(p) + first))
        bind.append(b)
        rest.append(r)
    return names, np.concatenate(parents).astype(np.int32), np.concatenate(bind), np.concatenate(rest), rigs


def _joint_name_clash(arms, only_deform):
    """(armature names, name) of two of arms that would write a joint of one name (a bone, or an armature object
    written as its bones' parent), else None."""
    from . import bridge

    owner = {}
    for arm in arms:
        bones = bridge.armature_to_skeleton_arrays(arm, None, only_deform)[0]
        for n in set(bones) | ({arm.name} if arm.name not in arm.data.bones else set()):
            if n in owner:
                return ("%s and %s" % (owner[n], arm.name), n)
            owner[n] = arm.name
    return None


def _mesh_rig_names(obj, rigs, joints, gltf):
    """(armature, its written bone names, weight names over the whole skeleton, anchor joint) for a mesh of an
    export of several armatures: its weights go to its own armature's bones only (those of another one would not
    move it in Blender either); (None, [], None, None) for a mesh no armature of the export deforms."""
    from . import bridge

    a = bridge.mesh_armature(obj)
    rig = next((r for r in rigs if r.arm == a), None)
    if rig is None:
        return None, [], None, None
    own = range(rig.first + rig.wrapped, rig.first + rig.count)
    weight_names = [n if j in own else None for j, n in enumerate(joints)]
    return rig.arm, [joints[j] for j in own], weight_names, rig.first if rig.wrapped and gltf else None


def _object_parent_joint(obj, arm, wrapped, rigs):
    """The written joint of the armature object obj hangs from (parent type Object, no bone): its rig's first joint
    when that armature is written as a node (wrapped), else None."""
    p = obj.parent
    if p is None or p.type != "ARMATURE" or obj.parent_type != "OBJECT":
        return None
    if rigs:
        rig = next((r for r in rigs if r.arm == p and r.wrapped), None)
        return rig.first if rig is not None else None
    return 0 if p == arm and wrapped else None


def _wrapped_arms(arm, wrapped, rigs):
    """The armature objects an export writes as nodes (their bones' parent joints)."""
    if rigs:
        return [r.arm for r in rigs if r.wrapped]
    return [arm] if arm is not None and wrapped else []


def _written_bones(arm, rigs):
    """Bone name -> data bone of the exported armature(s), or None."""
    if rigs:
        return {b.name: b for r in rigs for b in r.arm.data.bones}
    return arm.data.bones if arm is not None else None


def _written_rest(arm, names):
    """(J, 4, 4) world rest matrices of the exported joints: the file's rest pose Import via skinkit recorded, else
    the bones' rest (export_attach.written_rest)."""
    np = _np()
    from . import export_attach

    a = np.array(arm.matrix_world, np.float64)
    return np.stack([a @ export_attach.written_rest(arm, n) for n in names])


def _mesh_attachment(obj, arm, names, notes):
    """(world matrix, joint or None) of a mesh to export: a mesh that hangs from a bone of arm follows the nearest
    exported bone at or above its parent bone when it has no weights of its own, placed as at the bones' own rest
    (the bind pose, which the skin moves to the written rest; export_attach.py); what cannot be kept is added to
    notes."""
    from . import export_attach

    world, bone = export_attach.rest_world(obj, arm, at_bind=True)
    if bone is None or names is None or _has_own_weights(obj, names):
        return world, None
    joint = export_attach.exported_joint(arm, bone, set(names))
    if joint is None:
        notes.append("%s hangs from bone %s, which is not exported (Only Deform Bones): written unattached"
                     % (obj.name, bone))
    elif joint != bone:
        notes.append("%s hangs from bone %s, which is not exported (Only Deform Bones): it follows %s"
                     % (obj.name, bone, joint))
    return world, joint


def _modifiers_not_applied(objs):
    """The report's words for the modifiers other than Armature that are on in the viewport of objs (the export
    writes each mesh's own data: a Mirror or Subdivision Surface is not in the file), "" when there are none."""
    parts = []
    for o in objs:
        kinds = [m.name for m in o.modifiers if m.type != "ARMATURE" and m.show_viewport]
        if kinds:
            parts.append("%s on %s" % (", ".join(kinds[:3]) + (", ..." if len(kinds) > 3 else ""), o.name))
    return "; ".join(parts[:3]) + ("; ..." if len(parts) > 3 else "")


_INTERNAL_PROPS = ("cycles", "glTF2ExportSettings", "skinkit_file_rest")


def _write_custom_props(scene, arms, objs, bones=None, bone_names=()):
    """The custom properties of the exported objects (and of the armature object when it is written as a node, arm
    not None) and of the written bones (bones: the armature's data bones, bone_names: those written, each a joint of
    its name) into the scene (api.Scene.add_custom_prop, ABI 1.17: the glTF nodes' extras, binary FBX user
    properties), as Blender's glTF exporter writes them (a bone's are its data bone's), and those of each exported
    object's mesh data as that mesh's (api.Scene.add_mesh_prop, ABI 1.19: the glTF mesh's
    extras, the binary FBX Geometry's user properties): ints, bools, floats, strings and 3-number arrays; keys starting
    with "_" and the add-ons' own left out. Returns how many."""
    n = 0
    owners = [(o.name, o, scene.add_custom_prop) for o in list(arms) + list(objs)]
    owners += [(b, bones[b], scene.add_custom_prop) for b in bone_names if bones is not None and b in bones]
    owners += [(o.data.name, o.data, scene.add_mesh_prop) for o in objs if o.type == "MESH"]
    for name, owner, add in owners:
        for key in owner.keys():
            if key.startswith("_") or key in _INTERNAL_PROPS:
                continue
            value = owner[key]
            if hasattr(value, "to_list"):
                value = value.to_list()
            n += bool(add(name, key, value))
    return n


def _shape_keys_animated(obj, drivers=False):
    """Whether obj's shape keys carry keys (an action or NLA strips), or with drivers=True drivers on their values."""
    key = obj.data.shape_keys
    ad = key.animation_data if key is not None else None
    if ad is None:
        return False
    return len(ad.drivers) > 0 if drivers else ad.action is not None or any(t.strips for t in ad.nla_tracks)


def _has_own_weights(obj, names):
    """Whether obj has a vertex group named after one of the joints (its own weights)."""
    joints = set(names)
    return any(g.name in joints for g in obj.vertex_groups)


def blender_frame(context):
    """(metres per Blender unit, axes) of the scene's world: Z up, a character facing -Y (glTF's front, +Z, is
    Blender's -Y, as Blender's own glTF exporter maps it); the unit as Blender's FBX exporter takes it."""
    us = context.scene.unit_settings
    unit = us.scale_length if us.system != "NONE" and us.scale_length > 0 else 1.0
    return unit, (3, -2, 1)


class SKINKIT_OT_export_assimp(bpy.types.Operator, ExportHelper):
    """Export the selected meshes, their armature and vertex groups through the skinkit library (glTF by its own
    writer, any number of influences; Collada and binary/ASCII FBX through Assimp, repaired). Geometry, UVs, normals,
    skins, materials (Principled BSDF as glTF reads it, with its images), shape keys (glTF morph targets) and the
    armature's actions as clips (a warning names what a format cannot carry and what of a material could not be
    written)"""

    bl_idname = "export_scene.skinkit_assimp"
    bl_label = "Export via skinkit (Assimp)"
    bl_options = {"REGISTER", "UNDO"}

    filename_ext = ".glb"
    filter_glob: StringProperty(default="*.glb;*.gltf;*.dae;*.fbx", options={"HIDDEN"})

    format: EnumProperty(name="Format", items=(
        ("GLB", "glTF Binary (.glb)", ""), ("GLTF", "glTF Separate (.gltf)", ""), ("DAE", "Collada (.dae)", ""),
        ("FBX", "FBX Binary (.fbx)", "Assimp's binary FBX with its records repaired by skinkit: Blender and Assimp "
         "read it back"),
        ("FBXA", "FBX ASCII (.fbx)", "Assimp reads it back; Blender does not read ASCII FBX")),
        default="GLB")
    use_selection: BoolProperty(name="Selected Only", description="Export the selected meshes only (otherwise every "
                                "mesh of the scene)", default=True)
    only_deform: BoolProperty(name="Only Deform Bones", description="Write the deforming bones only (Blender's "
                              "exporters write every bone unless asked: control, IK and helper bones too)",
                              default=False)
    normalize: BoolProperty(name="Normalize", description="Each vertex's weights sum to 1", default=True)
    max_influences: IntProperty(name="Limit", description="Keep the N largest weights per vertex (0 = the format's "
                                "default: 4 for glTF, all for the others; glTF writes more than 4 in JOINTS_1...)",
                                default=4, min=0, max=64)
    prune: FloatProperty(name="Prune Below", description="Drop weights below this first", default=0.0, min=0.0,
                         max=0.5, precision=4)
    uvs: BoolProperty(name="UVs", description="Write the active UV map and the first other one, and the active "
                      "colour attribute (vertices split where their corners differ)", default=True)
    normals: BoolProperty(name="Normals", default=True)
    objects: BoolProperty(name="Cameras, Lights, Empties", description="Write the cameras, lights and empties (the "
                          "selected ones with Selected Only) with what they hang from; .dae and .fbx take the "
                          "empties and name the cameras and lights as not written", default=True)
    animations: BoolProperty(name="Animations", description="Write the armature's actions as clips (the active "
                             "action and those of its NLA strips, each sampled at every frame and key)", default=True)
    apply_modifiers: BoolProperty(name="Apply Modifiers", description="Write each mesh with its modifiers applied "
                                  "but the Armature ones (a Mirror, a Subdivision Surface), as Blender's FBX exporter "
                                  "does; a mesh with shape keys is written without them (a warning says so)",
                                  default=True)
    shape_keys: BoolProperty(name="Shape Keys", description="Write the meshes' shape keys with their names and values "
                             "(glTF morph targets, FBX blend shapes, binary or ASCII; .dae carries none: a warning "
                             "names the meshes); muted keys are left out, as Blender's glTF exporter does",
                             default=True)

    @classmethod
    def poll(cls, context):
        if context.mode != "OBJECT":
            cls.poll_message_set("Needs Object mode")
            return False
        if not any(o.type == "MESH" for o in context.scene.objects):
            cls.poll_message_set("No mesh in the scene")
            return False
        return True

    def check(self, context):
        want = _EXPORT_FORMATS[self.format][0]
        base, ext = os.path.splitext(self.filepath)
        if ext.lower() != want:
            self.filepath = (base if ext.lower() in (".glb", ".gltf", ".dae", ".fbx") else self.filepath) + want
            return True
        return False

    def execute(self, context):
        ops = _ops()
        if not self.properties.is_property_set("format"):  # a script's filepath="x.fbx" names the format
            ext = os.path.splitext(self.filepath)[1].lower()
            self.format = next((k for k, (e, _f) in _EXPORT_FORMATS.items() if e == ext), self.format)
        meshes, arms = _skinned_targets(context, self.use_selection)
        if not meshes:
            self.report({"ERROR"}, "Skinkit: no mesh to export (select meshes or disable Selected Only)")
            return {"CANCELLED"}
        clash = _joint_name_clash(arms, self.only_deform) if len(arms) > 1 else None
        if clash:
            self.report({"ERROR"}, "Skinkit: the armatures %s both have a bone or object named %r, and a file's "
                        "joints need distinct names: rename one, or export one armature at a time" % clash)
            return {"CANCELLED"}
        arm = arms[0] if arms else None
        ext, fmt = _EXPORT_FORMATS[self.format]
        path = bpy.path.abspath(self.filepath)
        if os.path.splitext(path)[1].lower() != ext:
            path += ext
        folder = os.path.dirname(path) or "."
        if not os.path.isdir(folder):
            self.report({"ERROR"}, "Skinkit: cannot write %s: folder %s does not exist" % (path, folder))
            return {"CANCELLED"}
        wm = context.window_manager
        wm.progress_begin(0, len(meshes) + 1)
        try:
            out = self._write_file(context, ops._load_api(context), arm, meshes, ext, fmt, path, arms)
        except Exception as e:
            return ops._fail(self, e)
        finally:
            wm.progress_end()
        return self._report_export(path, ext, meshes, arm, out)

    def _write_file(self, context, api, arm, meshes, ext, fmt, path, arms=()):
        """Writes path: a dict of what was written (meshes, names of the bones, materials writer, objects, clips,
        modified: meshes written with their modifiers applied; rigs: with several armatures, _ExportRig each) and
        the notes of each step."""
        from . import bridge, materials

        out = dict(names=[], written=[], skinned=0, attach_notes=[], saved="", modified=[], rigs=[])
        sk, wrapped = None, False  # wrapped: the bones under a joint that is the armature object
        if len(arms) > 1:
            joints, parents, bind, rest, out["rigs"] = _export_skeletons(arms, self.only_deform)
            wraps = {r.first for r in out["rigs"] if r.wrapped}
            out["names"], out["joints"] = [n for j, n in enumerate(joints) if j not in wraps], joints
            sk = api.Skeleton(joints, parents, bind=bind, rest_local=bridge.rest_local_from_world(parents, rest))
        elif arm is not None:
            joints, parents, bind, rest, wrapped = _export_skeleton(arm, self.only_deform)
            out["names"] = joints[1:] if wrapped else joints
            sk = api.Skeleton(joints, parents, bind=bind, rest_local=bridge.rest_local_from_world(parents, rest))
        try:
            with api.Scene.create(sk) as scene:
                scene.set_frame(*blender_frame(context))  # the writers turn Blender's Z up into glTF's Y up
                out["mats"] = materials.MaterialWriter(scene)
                self._write_meshes(context, api, scene, arm, meshes, wrapped, ext, out)
                if not out["written"]:
                    raise ValueError("the meshes to export have no vertices")
                out["objects"], out["object_notes"] = self._write_objects(context, scene, arm, out["names"],
                                                                          out["written"], wrapped, out["rigs"])
                out["custom_props"] = _write_custom_props(scene, _wrapped_arms(arm, wrapped, out["rigs"]),
                                                          [bpy.data.objects[n] for n in out["written"]],
                                                          _written_bones(arm, out["rigs"]), out["names"])
                out["clips"], out["clip_notes"] = self._write_clips(context, scene, arm, wrapped,
                                                                    out.get("shaped", []), out["rigs"])
                out["saved"] = scene.save(path, overwrite=True, format=fmt, normalize=self.normalize,
                                          max_influences=self.max_influences, prune=self.prune)
        finally:
            if sk is not None:
                sk.close()
        return out

    def _write_meshes(self, context, api, scene, arm, meshes, wrapped, ext, out):
        """Adds the meshes to scene (their modifiers applied with Apply Modifiers), recording them in out."""
        names = out["names"]
        weight_names = ([None] + names if wrapped else names) if scene.skeleton is not None else None
        gltf = ext in (".glb", ".gltf")
        anchor = 0 if wrapped and gltf else None
        top_arm = arm
        for i, obj in enumerate(meshes):
            if not len(obj.data.vertices):
                continue
            if out["rigs"]:  # several armatures: the mesh's own, its weights on that one's bones only
                arm, names, weight_names, anchor = _mesh_rig_names(obj, out["rigs"], out["joints"], gltf)
            world, rigid = _mesh_attachment(obj, arm, names, out["attach_notes"])
            applied = _with_modifiers(context, obj) if self.apply_modifiers else None
            first = scene.mesh_count
            shapes = self.shape_keys and self._keeps_shapes(ext)
            try:
                skinned = _write_object(api, scene, applied or obj, weight_names, out["mats"], self.normals, self.uvs,
                                        shapes, world, rigid, anchor, name=obj.name, mesh_name=obj.data.name)
            finally:
                _remove_applied(applied)
            out["skinned"] += skinned
            holder = None if skinned else _object_parent_joint(obj, top_arm, wrapped, out["rigs"])
            for m in range(first, scene.mesh_count) if holder is not None else ():
                scene.set_mesh_parent_joint(m, holder)  # a prop parented to the armature object follows its clips
            if shapes and obj.data.shape_keys is not None:
                out.setdefault("shaped", []).append((obj, list(range(first, scene.mesh_count))))
            out["written"].append(obj.name)
            if applied is not None:
                out["modified"].append(obj.name)
            context.window_manager.progress_update(i + 1)

    def _report_export(self, path, ext, meshes, arm, out):
        """LAST_EXPORT_ASSIMP and the report: a warning naming everything not written as it is, else the counts."""
        written, mats, clips, objects = out["written"], out["mats"], out["clips"], out["objects"]
        LAST_EXPORT_ASSIMP.clear()
        LAST_EXPORT_ASSIMP.update(path=path, meshes=written, armature=arm.name if arm is not None else None,
                                  armatures=[r.arm.name for r in out["rigs"]] or ([arm.name] if arm else []),
                                  joints=out["names"], materials=sorted(mats.materials), notes=list(mats.notes),
                                  objects=objects, actions=clips)
        shaped = [o.name for o in meshes if o.name in written and o.data.shape_keys
                  and len(o.data.shape_keys.key_blocks) > 1]
        shapes = sum(len(_shape_keys(bpy.data.objects[n], False)[0]) for n in shaped) if self.shape_keys else 0
        LAST_EXPORT_ASSIMP["shape_keys"] = shapes if self._keeps_shapes(ext) else 0
        left = self._export_notes(path, ext, shaped, out)
        if left:
            msg = "; ".join(left)
            LAST_EXPORT_ASSIMP["warning"] = msg
            self.report({"WARNING"}, msg)
            return {"FINISHED"}
        self.report({"INFO"}, "%s: %d meshes (%d skinned), %d joints, %d materials%s" % (
            os.path.basename(path), len(written), out["skinned"], len(out["names"]), len(mats.materials),
            (", %d cameras, lights and empties" % len(objects) if objects else "")
            + (", %d clips" % len(clips) if clips else "")
            + (", %d shape keys" % LAST_EXPORT_ASSIMP["shape_keys"] if LAST_EXPORT_ASSIMP["shape_keys"] else "")))
        return {"FINISHED"}

    def _keeps_shapes(self, ext):
        """Whether the format written keeps shape keys: glTF (morph targets) and FBX, binary or ASCII (blend shapes,
        written by the library's FBX pass; ASCII FBX is that file as text); Collada through Assimp carries none."""
        return ext in (".glb", ".gltf") or self.format in ("FBX", "FBXA")

    def _export_notes(self, path, ext, shaped, out):
        """Nothing is left out silently: our notes, then the library's (what the file format could not keep), the
        first one prefixed with the file's name."""
        written = out["written"]
        left = list(out["mats"].notes) + out["attach_notes"] + out["object_notes"] + out["clip_notes"] + (
            [out["saved"]] if out["saved"] else [])
        stacked = _modifiers_not_applied([bpy.data.objects[n] for n in written if n not in out["modified"]])
        if stacked:
            left.append("modifiers not applied (the mesh is written as it is before them%s): %s" % (
                ": Apply Modifiers is off" if not self.apply_modifiers else "; it has shape keys", stacked))
        keyed = [n for n in shaped if _shape_keys_animated(bpy.data.objects[n])]
        if keyed and self.shape_keys and self._keeps_shapes(ext) and (not self.animations or not out["names"]):
            left.append("the animation of the shape keys of %s not written (%s; their current values are)" % (
                ", ".join(keyed), "Animations is off" if not self.animations else "clips need an armature here"))
        driven = [n for n in shaped if _shape_keys_animated(bpy.data.objects[n], drivers=True)]
        if driven and self.shape_keys and self._keeps_shapes(ext):
            left.append("the drivers of the shape keys of %s not written (their current values are)" % ", ".join(driven))
        if shaped and (not self._keeps_shapes(ext) or not self.shape_keys):
            left.insert(0, "%s written without the shape keys of %s (%s)" % (
                os.path.basename(path), ", ".join(shaped),
                "Shape Keys is off" if not self.shape_keys else
                "Collada through Assimp carries none; glTF keeps them as morph targets, FBX (binary or ASCII) as "
                "blend shapes"))
        elif left:
            left[0] = "%s: %s" % (os.path.basename(path), left[0])
        return left

    def _write_clips(self, context, scene, arm, wrapped, shaped=(), rigs=()):
        """The armature's actions as clips and the shape key actions of the objects shaped ([(object, its scene
        meshes)]) as their blend shape keys (export_anim.py): (clip names, notes)."""
        if not self.animations or arm is None or scene.skeleton is None:
            return [], []
        from . import export_anim

        zero = 1.0 if self.format in ("FBX", "FBXA") else 0.0
        clips, notes = [], []
        for rig in rigs or ():
            more_clips, more_notes = export_anim.write_clips(context, scene, rig.arm, rig.wrapped, zero,
                                                             (rig.first, rig.count))
            clips, notes = clips + more_clips, notes + more_notes
        if not rigs:
            clips, notes = export_anim.write_clips(context, scene, arm, wrapped, zero)
        added, more = export_anim.write_shape_key_clips(context, scene, shaped, zero)
        return clips + added, notes + more

    def _write_objects(self, context, scene, arm, joints, meshes, wrapped, rigs=()):
        """The cameras, lights and empties into scene (every format keeps them): (names written, notes)."""
        from . import export_objects

        objs = export_objects.candidates(context, self.use_selection) if self.objects else []
        notes = []
        if not objs:
            return [], notes
        rigs = [(r.arm, r.arm.name if r.wrapped else None) for r in rigs] if rigs else None
        names, more = export_objects.write_objects(context, scene, objs, arm, joints, meshes,
                                                   arm.name if wrapped else None, rigs)
        return names, notes + more


# ------------------------------------------------------------------------------------------- menus
def menu_import(self, context):
    self.layout.operator(SKINKIT_OT_import_assimp.bl_idname,
                         text="skinkit (.glb .gltf .fbx .dae .x .b3d .md5mesh .mesh .iqm ...)")


def menu_export(self, context):
    self.layout.operator(SKINKIT_OT_export_skf.bl_idname, text="Skin data (.skf)")
    self.layout.operator(SKINKIT_OT_export_assimp.bl_idname, text="skinkit (.glb .gltf .dae .fbx)")


MENUS = (("TOPBAR_MT_file_import", menu_import), ("TOPBAR_MT_file_export", menu_export))

classes = (SKINKIT_OT_export_skf, SKINKIT_OT_import_assimp, SKINKIT_OT_export_assimp)
