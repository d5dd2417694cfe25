"""The native libraries bundled beside libskinkit.so in the self-contained addon zip (Linux x86-64).

That zip's ``skinkit/libs/`` holds every shared library libskinkit.so needs apart from the C and C++ runtime
(Assimp, CHOLMOD and the rest of SuiteSparse, OpenBLAS with gfortran, qhull, Draco, meshoptimizer, minizip, zlib,
libgomp) and ``libs/load_order.txt`` lists them, each after the libraries it needs (python_addon/bundle_deps.cmake
makes both). :func:`preload` loads them in that order before libskinkit: the dynamic linker then finds every
library libskinkit and the bundle ask for among those already loaded (it matches a needed name against the
sonames of loaded libraries) and never searches the system's folders. A library the host process already has
(Blender's own zlib, libgomp or BLAS) is used as it is, not loaded a second time. The plain build's zip and a
development tree have no ``libs/`` folder: nothing happens there.
"""

import ctypes
import os
import threading

LIBS_DIR = "libs"
ORDER_FILE = "load_order.txt"

_lock = threading.Lock()
_handles = {}  # bundle folder -> [(soname, CDLL or None when the host had it)]


def bundle_dir(library_dir):
    """The bundle folder beside libskinkit.so, or None when there is none."""
    d = os.path.join(library_dir, LIBS_DIR)
    return d if os.path.isfile(os.path.join(d, ORDER_FILE)) else None


def already_loaded(soname):
    """True when the process already has a library of that soname (the host's); loads nothing."""
    try:
        ctypes.CDLL(soname, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        return True
    except OSError:
        return False


def preload(library_dir):
    """Loads the bundle beside libskinkit.so once per process, dependencies first. Returns the list of
    (soname, source) with source "bundle" or "host"; [] without a bundle. Raises OSError naming the library that
    fails to load."""
    d = bundle_dir(library_dir)
    if d is None:
        return []
    with _lock:
        if d not in _handles:
            _handles[d] = _load_all(d)
        return [(name, "host" if h is None else "bundle") for name, h in _handles[d]]


def _load_all(d):
    with open(os.path.join(d, ORDER_FILE), encoding="utf-8") as f:
        names = [ln.strip() for ln in f if ln.strip()]
    loaded = []
    for name in names:
        if os.sep in name or name.startswith("."):
            raise OSError("%s: bad entry %r" % (os.path.join(d, ORDER_FILE), name))
        if already_loaded(name):
            loaded.append((name, None))
            continue
        try:
            loaded.append((name, ctypes.CDLL(os.path.join(d, name), mode=os.RTLD_NOW | os.RTLD_LOCAL)))
        except OSError as e:
            raise OSError("bundled library %s: %s" % (name, e)) from None
    return loaded
