# make_ogre_rig.py - a two-bone Ogre rig written by Ogre's own tools in the format Ogre 1.10 - 14 write:
#   python3 tests/data/make_ogre_rig.py tests/data   (needs Debian's ogre-1.12-tools: OgreXMLConverter, OgreMeshUpgrader)
# Writes ogre_rig.mesh.xml and ogre_rig.skeleton.xml (a capped-less cylinder of 8 sides x 9 rings along +Y, radius
# 0.25, height 2, bones "lower" at y = 0 and "upper" at y = 1 with a linear weight ramp over y in [0.75, 1.25], an
# animation "Bend" turning "upper" 60 degrees about Z), then ogre_rig_v110.mesh ([MeshSerializer_v1.100], 2 LOD
# levels added by OgreMeshUpgrader) and ogre_rig.skeleton ([Serializer_v1.80]) from them; the XML files stay as the
# reference the test reads beside the binary mesh (test_ogre).
import math, os, subprocess, sys

out = sys.argv[1]
SIDES, RINGS, R, H = 8, 9, 0.25, 2.0
verts, faces, assign = [], [], []
for r in range(RINGS):
    y = H * r / (RINGS - 1)
    w_up = min(1.0, max(0.0, (y - 0.75) / 0.5))
    for s in range(SIDES):
        a = 2 * math.pi * s / SIDES
        verts.append(((R * math.cos(a), y, R * math.sin(a)), (math.cos(a), 0.0, math.sin(a)), (s / SIDES, y / H)))
        v = len(verts) - 1
        if w_up < 1.0:
            assign.append((v, 0, 1.0 - w_up))
        if w_up > 0.0:
            assign.append((v, 1, w_up))
for r in range(RINGS - 1):
    for s in range(SIDES):
        a, b = r * SIDES + s, r * SIDES + (s + 1) % SIDES
        c, d = a + SIDES, b + SIDES
        faces += [(a, c, b), (b, c, d)]

xml = ['<?xml version="1.0"?>', "<mesh>", "<submeshes>",
       '<submesh material="Rig_Skin" usesharedvertices="false" use32bitindexes="false" operationtype="triangle_list">',
       '<faces count="%d">' % len(faces)]
xml += ['<face v1="%d" v2="%d" v3="%d" />' % f for f in faces]
xml += ["</faces>", '<geometry vertexcount="%d">' % len(verts), '<vertexbuffer positions="true" normals="true">']
for p, n, _ in verts:
    xml.append('<vertex><position x="%.6f" y="%.6f" z="%.6f" /><normal x="%.6f" y="%.6f" z="%.6f" /></vertex>' % (p + n))
xml += ["</vertexbuffer>", '<vertexbuffer texture_coord_dimensions_0="float2" texture_coords="1">']
for _, _, t in verts:
    xml.append('<vertex><texcoord u="%.6f" v="%.6f" /></vertex>' % t)
xml += ["</vertexbuffer>", "</geometry>", "<boneassignments>"]
xml += ['<vertexboneassignment vertexindex="%d" boneindex="%d" weight="%.6f" />' % a for a in assign]
xml += ["</boneassignments>", "</submesh>", "</submeshes>", '<skeletonlink name="ogre_rig.skeleton" />', "</mesh>"]
with open(os.path.join(out, "ogre_rig.mesh.xml"), "w") as f:
    f.write("\n".join(xml) + "\n")

half = math.radians(60) / 2
skel = ['<?xml version="1.0"?>', '<skeleton blendmode="average">', "<bones>",
        '<bone id="0" name="lower"><position x="0" y="0" z="0" /><rotation angle="0"><axis x="1" y="0" z="0" />'
        "</rotation></bone>",
        '<bone id="1" name="upper"><position x="0" y="1" z="0" /><rotation angle="0"><axis x="1" y="0" z="0" />'
        "</rotation></bone>",
        "</bones>", "<bonehierarchy>", '<boneparent bone="upper" parent="lower" />', "</bonehierarchy>",
        "<animations>", '<animation name="Bend" length="1">', "<tracks>", '<track bone="upper">', "<keyframes>"]
for t, ang in ((0.0, 0.0), (0.5, math.radians(60)), (1.0, 0.0)):
    skel.append('<keyframe time="%g"><translate x="0" y="0" z="0" /><rotate angle="%.6f"><axis x="0" y="0" z="1" />'
                "</rotate></keyframe>" % (t, ang))
skel += ["</keyframes>", "</track>", "</tracks>", "</animation>", "</animations>", "</skeleton>"]
with open(os.path.join(out, "ogre_rig.skeleton.xml"), "w") as f:
    f.write("\n".join(skel) + "\n")

def run(*args):
    subprocess.run(args, check=True, cwd=out, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

run("OgreXMLConverter", "ogre_rig.skeleton.xml", "ogre_rig.skeleton")
run("OgreXMLConverter", "ogre_rig.mesh.xml", "ogre_rig_plain.mesh")
run("OgreMeshUpgrader", "-l", "2", "-d", "50", "-p", "30", "ogre_rig_plain.mesh", "ogre_rig_v110.mesh")
os.remove(os.path.join(out, "ogre_rig_plain.mesh"))
for junk in ("OgreXMLConverter.log", "OgreMeshUpgrader.log", "OgreMeshUpgrade.log"):
    if os.path.exists(os.path.join(out, junk)):
        os.remove(os.path.join(out, junk))
