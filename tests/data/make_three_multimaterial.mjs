// make_three_multimaterial.mjs - tests/data/three_multimaterial.glb: a skinned cylinder drawn with two materials,
// written by three.js's own GLTFExporter (npm three 0.170). three.js keeps a multi-material mesh as one vertex set
// with index groups, and its exporter writes one glTF primitive per group, every primitive naming the same
// POSITION / NORMAL / TEXCOORD_0 / JOINTS_0 / WEIGHTS_0 accessors with its own indices and material: the layout
// skinkit's glTF reader merges back into one mesh (io/gltf_import.c).
// The cylinder: radius 0.25, y from 0 to 2, 12 segments around, 16 rows (17 rings of 13 vertices: the seam is
// doubled), open ends, 221 vertices; three.js emits the rows from the top, so the upper 8 rows use material "Cloth"
// and the lower 8 "Skin" (the ring at y = 1 is in both). Bones: "hip" at y = 0,
// "knee" at y = 1 (child), "foot" at y = 2 (leaf); weights ramp hip -> knee over y in [0.75, 1.25] and knee ->
// foot over [1.75, 2].
// With --one-material (tests/data/three_onematerial.glb) the same cylinder is one group and one material: the same
// vertices and index list in one primitive, the reference for what an edit of the two-part file must give.
// Run: npm install three@0.170 && node tests/data/make_three_multimaterial.mjs NODE_MODULES_DIR OUT.glb [--one-material]
import { pathToFileURL } from 'node:url';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [modules, out, flag] = process.argv.slice(2);
const one = flag === '--one-material';
if (!modules || !out) throw new Error('usage: node make_three_multimaterial.mjs NODE_MODULES_DIR OUT.glb');
// GLTFExporter reads its Blob output through FileReader, which Node lacks
globalThis.FileReader = class {
  readAsArrayBuffer(blob) { blob.arrayBuffer().then((b) => { this.result = b; this.onloadend && this.onloadend(); }); }
  readAsDataURL(blob) {
    blob.arrayBuffer().then((b) => {
      this.result = 'data:application/octet-stream;base64,' + Buffer.from(b).toString('base64');
      this.onloadend && this.onloadend();
    });
  }
};
const THREE = await import(pathToFileURL(join(modules, 'three/build/three.module.js')).href);
const { GLTFExporter } = await import(pathToFileURL(join(modules, 'three/examples/jsm/exporters/GLTFExporter.js')).href);

const rows = 16, segs = 12;
const geo = new THREE.CylinderGeometry(0.25, 0.25, 2, segs, rows, true);
geo.translate(0, 1, 0);
const pos = geo.attributes.position, n = pos.count;
const idx = new Uint16Array(n * 4), wt = new Float32Array(n * 4);
const ramp = (y, a, b) => Math.min(1, Math.max(0, (y - a) / (b - a)));
for (let v = 0; v < n; v++) {
  const y = pos.getY(v);
  const t1 = ramp(y, 0.75, 1.25), t2 = ramp(y, 1.75, 2.0);
  // hip, knee, foot
  const w = [1 - t1, t1 * (1 - t2), t2];
  let k = 0;
  for (let j = 0; j < 3; j++) if (w[j] > 0) { idx[v * 4 + k] = j; wt[v * 4 + k] = w[j]; k++; }
}
geo.setAttribute('skinIndex', new THREE.Uint16BufferAttribute(idx, 4));
geo.setAttribute('skinWeight', new THREE.Float32BufferAttribute(wt, 4));
// two groups over the index list, split at half: the upper rows, then the lower ones
const total = geo.index.count;
geo.clearGroups();
if (!one) {
  geo.addGroup(0, total / 2, 0);
  geo.addGroup(total / 2, total / 2, 1);
}

const hip = new THREE.Bone(); hip.name = 'hip';
const knee = new THREE.Bone(); knee.name = 'knee'; knee.position.y = 1; hip.add(knee);
const foot = new THREE.Bone(); foot.name = 'foot'; foot.position.y = 1; knee.add(foot);
const cloth = new THREE.MeshStandardMaterial({ name: 'Cloth', color: 0x3355aa, roughness: 0.8 });
const skin = new THREE.MeshStandardMaterial({ name: 'Skin', color: 0xd9a080, roughness: 0.5 });
const mesh = new THREE.SkinnedMesh(geo, one ? cloth : [cloth, skin]);
mesh.name = 'Leg';
const root = new THREE.Object3D(); root.name = 'Character';
root.add(hip);
root.add(mesh);
root.updateMatrixWorld(true);
mesh.bind(new THREE.Skeleton([hip, knee, foot]));

new GLTFExporter().parse(root, (glb) => writeFileSync(out, Buffer.from(glb)), (e) => { throw e; },
  { binary: true });
