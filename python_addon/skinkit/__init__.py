"""skinkit: skinned-mesh tools for Blender over libskinkit (auto bind, weight repair and editing, validation,
.skf export, import/export of formats Blender lacks through Assimp).

Layers: _ctypes.py (ctypes binding) and api.py (numpy wrappers) never import bpy and are usable from plain
Python; bridge.py (bpy <-> numpy), operators.py, io_scene.py (file import/export) with materials.py, panels.py and
preferences.py are the Blender side.
"""

bl_info = {
    "name": "skinkit",
    "author": "skinkit developers",
    "version": (1, 27, 2),
    "blender": (3, 4, 0),
    "location": "3D View > Sidebar > Skinkit; Weight Paint > Weights; Object > Parent; File > Import/Export",
    "description": "Auto bind, skin weight tools, .skf export and Assimp import/export backed by libskinkit",
    "doc_url": "",
    "category": "Rigging",
}

try:
    import bpy
except ImportError:  # plain Python (tests of _ctypes / api): no Blender side
    bpy = None

if bpy is not None:
    if "operators" in locals():  # script reload (F3 > Reload Scripts): reload what was loaded, deepest first
        import importlib
        import sys

        for _name in ("_ctypes", "api", "bridge", "materials", "preferences", "operators", "bake", "io_scene",
                      "panels"):
            _mod = sys.modules.get(__name__ + "." + _name)
            if _mod is not None:
                importlib.reload(_mod)
    # numpy and the ctypes layer (api, bridge) are imported lazily inside execute, keeping registration cheap.
    from . import bake, io_scene, operators, panels, preferences

    classes = preferences.classes + panels.classes + operators.classes + bake.classes + io_scene.classes
    MENUS = panels.MENUS + io_scene.MENUS
else:
    classes = ()
    MENUS = ()


def register():
    for cls in classes:
        bpy.utils.register_class(cls)
    for type_name, attr, group in panels.POINTERS:
        setattr(getattr(bpy.types, type_name), attr, bpy.props.PointerProperty(type=group))
    for menu_name, draw in MENUS:
        getattr(bpy.types, menu_name).append(draw)
    panels.register_keymap()


def unregister():
    panels.unregister_keymap()
    for menu_name, draw in reversed(MENUS):
        getattr(bpy.types, menu_name).remove(draw)
    for type_name, attr, _group in reversed(panels.POINTERS):
        delattr(getattr(bpy.types, type_name), attr)
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
    operators._PREFERENCE_READ.clear()  # registered again: the preference may have been reset meanwhile
