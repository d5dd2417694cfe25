// make_two_rigs_three.mjs - tests/data/two_rigs_three.glb: two characters in one scene, written by three.js's own
// GLTFExporter (npm three 0.170 or later), as a level or cutscene export holds them.
// "Arm": a group at the origin holding a 3-bone chain (Arm_bone0 at y = 0, Arm_bone1 at y = 1, Arm_bone2 at y = 2)
// and a skinned cylinder (radius 0.3, y 0..3, 12 segments, 12 rows, capped); Arm_bone1 is turned 0.3 rad about z
// after binding, so the rest pose is not the bind pose. "Tail": the same with 2 bones (Tail_bone0 at y = 0,
// Tail_bone1 at y = 1.5), the group at x = -2. Each skin binds in its own mesh space: three.js writes a skin's
// inverse binds times its mesh's bind matrix, so both rigs' bones sit around x = 0 in their own skin's space.
// Weights ramp linearly from one bone to the next between bone heads (two influences, sums 1, no joint twice).
// Also: a box "Prop" parented to Arm_bone2 (a rigid attachment), an unskinned box "Crate" at x = 3, a point light
// (KHR_lights_punctual), a camera and one clip "wave" (Arm_bone1 rotation, Tail_bone0 translation).
// Run: npm install three && node tests/data/make_two_rigs_three.mjs NODE_MODULES_DIR OUT.glb
import { pathToFileURL } from 'node:url';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [modules, out] = process.argv.slice(2);
if (!modules || !out) throw new Error('usage: node make_two_rigs_three.mjs NODE_MODULES_DIR OUT.glb');
// GLTFExporter reads its Blob output through FileReader, which Node lacks
globalThis.FileReader = class {
  readAsArrayBuffer(blob) { blob.arrayBuffer().then((b) => { this.result = b; this.onloadend && this.onloadend(); }); }
};
const THREE = await import(pathToFileURL(join(modules, 'three/build/three.module.js')).href);
const { GLTFExporter } = await import(pathToFileURL(join(modules, 'three/examples/jsm/exporters/GLTFExporter.js')).href);

function rig(name, segs) {
  const geo = new THREE.CylinderGeometry(0.3, 0.3, 3, 12, 12, false);
  geo.translate(0, 1.5, 0);
  const pos = geo.attributes.position, n = pos.count, len = 3 / segs;
  const si = new Uint16Array(n * 4), sw = new Float32Array(n * 4);
  for (let i = 0; i < n; ++i) {
    const t = Math.min(pos.getY(i) / len, segs - 1), b = Math.min(segs - 2, Math.floor(t)), f = t - b;
    si[4 * i] = b, sw[4 * i] = 1 - f, si[4 * i + 1] = b + 1, sw[4 * i + 1] = f;
  }
  geo.setAttribute('skinIndex', new THREE.Uint16BufferAttribute(si, 4));
  geo.setAttribute('skinWeight', new THREE.Float32BufferAttribute(sw, 4));
  const bones = [];
  for (let b = 0; b < segs; ++b) {
    const bone = new THREE.Bone();
    bone.name = `${name}_bone${b}`;
    bone.position.y = b ? len : 0;
    if (b) bones[b - 1].add(bone);
    bones.push(bone);
  }
  const mat = new THREE.MeshStandardMaterial({ color: 0x3366aa, roughness: 0.4, metalness: 0.1, name: `${name}_mat` });
  const mesh = new THREE.SkinnedMesh(geo, mat);
  mesh.name = `${name}_skin`;
  const group = new THREE.Group();
  group.name = name;
  group.add(bones[0], mesh);
  return { group, bones, mesh };
}

const scene = new THREE.Scene();
const arm = rig('Arm', 3), tail = rig('Tail', 2);
tail.group.position.set(-2, 0, 0);
scene.add(arm.group, tail.group);
const prop = new THREE.Mesh(new THREE.BoxGeometry(0.2, 0.2, 0.2), new THREE.MeshStandardMaterial({ name: 'prop_mat' }));
prop.name = 'Prop';
prop.position.set(0.4, 0.5, 0);
arm.bones[2].add(prop);
const crate = new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1), new THREE.MeshStandardMaterial({ name: 'crate_mat' }));
crate.name = 'Crate';
crate.position.set(3, 0.5, 0);
const light = new THREE.PointLight(0xffffff, 2);
light.name = 'Lamp';
const cam = new THREE.PerspectiveCamera(50, 1.5, 0.1, 100);
cam.name = 'Cam';
cam.position.set(0, 2, 8);
scene.add(crate, light, cam);
scene.updateMatrixWorld(true);
for (const r of [arm, tail]) r.mesh.bind(new THREE.Skeleton(r.bones));
arm.bones[1].rotation.z = 0.3;
const clip = new THREE.AnimationClip('wave', 2, [
  new THREE.QuaternionKeyframeTrack('Arm_bone1.quaternion', [0, 1, 2], [0, 0, 0, 1, 0, 0, 0.38, 0.925, 0, 0, 0, 1]),
  new THREE.VectorKeyframeTrack('Tail_bone0.position', [0, 1, 2], [0, 0, 0, 0, 0.5, 0, 0, 0, 0]),
]);
const glb = await new GLTFExporter().parseAsync(scene, { binary: true, animations: [clip] });
writeFileSync(out, Buffer.from(glb));
