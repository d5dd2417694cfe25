"""Addon preferences: library path override (file or folder; empty = SKINKIT_LIBRARY, then the addon folder)."""

import bpy
from bpy.props import StringProperty

# "skinkit" as a legacy addon, "bl_ext.<repo>.skinkit" as a 4.2+ extension.
ADDON_ID = __package__


def _update_library_path(self, context):
    try:
        from . import api
    except ImportError:
        return
    api.set_library_path(bpy.path.abspath(self.library_path) if self.library_path else None)


def get(context=None):
    """The preferences of this addon, or None (e.g. while unregistered)."""
    ctx = context or bpy.context
    addon = ctx.preferences.addons.get(ADDON_ID)
    return addon.preferences if addon is not None else None


def library_path(context=None):
    prefs = get(context)
    if prefs is None or not prefs.library_path:
        return None
    return bpy.path.abspath(prefs.library_path)


class SkinkitPreferences(bpy.types.AddonPreferences):
    bl_idname = ADDON_ID

    library_path: StringProperty(
        name="Library",
        description="libskinkit to load instead of the one shipped in the addon folder (a file or a folder; "
        "empty: environment variable SKINKIT_LIBRARY, then the addon folder)",
        subtype="FILE_PATH",
        default="",
        update=_update_library_path,
    )

    def draw(self, context):
        layout = self.layout
        layout.prop(self, "library_path")
        try:
            from . import api

            api.set_library_path(library_path(context))
            lib = api.library()
            layout.label(text="Loaded: %s (version %s, kernel %s)" % (lib.path, api.version(), api.cpu_kernel()),
                         icon="CHECKMARK")
        except Exception as e:  # shown, never raised
            layout.label(text=getattr(e, "message", None) or str(e), icon="ERROR")


classes = (SkinkitPreferences,)
