// add_vertex_colors.mjs NODE_MODULES_DIR SRC DST: adds COLOR_0 (RGBA, unsigned byte normalized) to every primitive of a glTF, a colour
// made from the vertex's position and index, so that gltfpack -cz has colours to code with the COLOR filter of
// KHR_meshopt_compression. NODE_MODULES_DIR holds @gltf-transform/core and /extensions (npm @gltf-transform/cli 4.5).
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const [modules, src, dst] = process.argv.slice(2);
if (!modules || !src || !dst) throw new Error('usage: node add_vertex_colors.mjs NODE_MODULES_DIR SRC DST');
const load = (name) => import(pathToFileURL(join(modules, name, 'dist', 'index.js')).href);
const { NodeIO } = await load('@gltf-transform/core');
const { ALL_EXTENSIONS } = await load('@gltf-transform/extensions');
const io = new NodeIO().registerExtensions(ALL_EXTENSIONS);
const doc = await io.read(src);
for (const mesh of doc.getRoot().listMeshes()) {
  for (const prim of mesh.listPrimitives()) {
    const pos = prim.getAttribute('POSITION');
    const n = pos.getCount(), rgba = new Uint8Array(4 * n), p = [0, 0, 0];
    for (let i = 0; i < n; i++) {
      pos.getElement(i, p);
      rgba[4 * i] = Math.round(127.5 + 127.5 * Math.sin(3 * p[0]));
      rgba[4 * i + 1] = Math.round(127.5 + 127.5 * Math.cos(2 * p[1]));
      rgba[4 * i + 2] = (i * 37) % 256;
      rgba[4 * i + 3] = 255 - (i % 64);
    }
    const acc = doc.createAccessor().setType('VEC4').setArray(rgba).setNormalized(true).setBuffer(pos.getBuffer());
    prim.setAttribute('COLOR_0', acc);
  }
}
await io.write(dst, doc);
