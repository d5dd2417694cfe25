"""Generated asset trees for the skinkit.batch tests and benchmark (tests/batch/test_batch.py,
tests/bench/bench_batch.py): copies of the model files of tests/data, copies of the public corpus when
SKINKIT_ASSETS is set (whole folders, so .gltf/.bin, Ogre .mesh/.skeleton and textures stay together), and broken
or hostile files: truncated copies, random bytes under model extensions, empty files."""
import os
import random
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.path.dirname(HERE), "data")
MODEL_EXT = (".glb", ".gltf", ".fbx", ".dae")


def data_models():
    return sorted(os.path.join(DATA, n) for n in os.listdir(DATA) if n.lower().endswith(MODEL_EXT))


def make_tree(root, target, corpus_copies=2, hostile=0.1, seed=19):
    """Writes about `target` model files under root (a tenth hostile by default); returns the count written."""
    rng = random.Random(seed)
    models = data_models()
    count = 0
    assets = os.environ.get("SKINKIT_ASSETS")
    if assets and os.path.isdir(assets):
        for c in range(corpus_copies):
            dst = os.path.join(root, "corpus%02d" % c)
            shutil.copytree(assets, dst, ignore=shutil.ignore_patterns("licenses", "*.txt", "*.md"))
            count += sum(1 for _d, _s, fs in os.walk(dst) for f in fs if f.lower().endswith(
                (".glb", ".gltf", ".fbx", ".dae", ".b3d", ".md5mesh", ".mesh", ".x")))
    bad = int(target * hostile)
    k = 0
    while count < target - bad:
        src = models[k % len(models)]
        d = os.path.join(root, "set%03d" % (k // 40), "sub%d" % (k % 3))
        os.makedirs(d, exist_ok=True)
        shutil.copyfile(src, os.path.join(d, "%04d_%s" % (k, os.path.basename(src))))
        k += 1
        count += 1
    hostile_dir = os.path.join(root, "hostile")
    os.makedirs(hostile_dir, exist_ok=True)
    for i in range(bad):
        kind = i % 3
        ext = MODEL_EXT[i % len(MODEL_EXT)] if kind else ".glb"
        path = os.path.join(hostile_dir, "h%04d_%s%s" % (i, ("trunc", "random", "empty")[kind], ext))
        if kind == 0:
            blob = open(models[i % len(models)], "rb").read()
            blob = blob[:rng.randrange(1, max(2, len(blob)))]
        elif kind == 1:
            blob = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 4096)))
        else:
            blob = b""
        with open(path, "wb") as f:
            f.write(blob)
        count += 1
    return count
