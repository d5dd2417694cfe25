// make_draco_weights.mjs - tests/data/draco_weights8.glb: a skinned 9 x 9 grid (81 vertices, 128 triangles) on a
// chain of four joints, every vertex with three or four float weights that sum to 1 (a fixed pseudo-random
// sequence), its primitive in KHR_draco_mesh_compression with the weights quantized to 8 bits: decoded, many
// vertices' weights sum off 1 by up to a few 1/255 steps, as Draco gives them to every reader. Run (npm
// @gltf-transform/cli 4.5, which brings @gltf-transform/core, /extensions, /functions and draco3dgltf):
//   NODE_PATH=$(npm root) node tests/data/make_draco_weights.mjs tests/data/draco_weights8.glb
import { createRequire } from 'module';
const require = createRequire(process.env.NODE_PATH ? process.env.NODE_PATH + '/' : import.meta.url);
const { Document, NodeIO } = require('@gltf-transform/core');
const { KHRDracoMeshCompression } = require('@gltf-transform/extensions');
const { draco } = require('@gltf-transform/functions');
const draco3d = require('draco3dgltf');

const N = 9, J = 4;
let seed = 12345;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const pos = [], joints = [], weights = [], idx = [];
for (let y = 0; y < N; y++)
  for (let x = 0; x < N; x++) {
    pos.push(x / (N - 1), y / (N - 1) * 3, 0);
    const k = 3 + (rand() < 0.5 ? 1 : 0), w = [];
    for (let i = 0; i < 4; i++) w.push(i < k ? 0.05 + rand() : 0);
    const s = w.reduce((a, b) => a + b, 0);
    joints.push(0, 1, 2, 3);
    weights.push(...w.map((v) => v / s));
  }
for (let y = 0; y < N - 1; y++)
  for (let x = 0; x < N - 1; x++) {
    const a = y * N + x;
    idx.push(a, a + 1, a + N, a + 1, a + N + 1, a + N);
  }

const doc = new Document();
const buffer = doc.createBuffer();
const acc = (type, array) => doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
const prim = doc.createPrimitive()
  .setIndices(acc('SCALAR', new Uint16Array(idx)))
  .setAttribute('POSITION', acc('VEC3', new Float32Array(pos)))
  .setAttribute('JOINTS_0', acc('VEC4', new Uint8Array(joints)))
  .setAttribute('WEIGHTS_0', acc('VEC4', new Float32Array(weights)));
const mesh = doc.createMesh('grid').addPrimitive(prim);
const bones = [];
for (let j = 0; j < J; j++) {
  const b = doc.createNode('bone' + j).setTranslation([0, j === 0 ? 0 : 1, 0]);
  if (j) bones[j - 1].addChild(b);
  bones.push(b);
}
const ibm = [];
for (let j = 0; j < J; j++) ibm.push(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -j, 0, 1);
const skin = doc.createSkin('rig').setInverseBindMatrices(acc('MAT4', new Float32Array(ibm)));
bones.forEach((b) => skin.addJoint(b));
const body = doc.createNode('body').setMesh(mesh).setSkin(skin);
doc.createScene('scene').addChild(bones[0]).addChild(body);

await doc.transform(draco({ method: 'edgebreaker', quantizeGeneric: 8 }));
const io = new NodeIO().registerExtensions([KHRDracoMeshCompression]).registerDependencies({
  'draco3d.encoder': await draco3d.createEncoderModule(),
  'draco3d.decoder': await draco3d.createDecoderModule(),
});
await io.write(process.argv[2] || 'draco_weights8.glb', doc);
