// make_embedded_gltf.mjs - a .glb rewritten as one self-contained .gltf (the buffer and every image as data: URIs,
// as three.js's GLTFExporter writes with binary: false):
//   node tests/data/make_embedded_gltf.mjs tests/data/two_rigs_three.glb tests/data/two_rigs_three_embedded.gltf
import fs from 'fs';

const [inp, out] = process.argv.slice(2);
const b = fs.readFileSync(inp);
const jlen = b.readUInt32LE(12);
const json = JSON.parse(b.subarray(20, 20 + jlen).toString());
const binLen = b.readUInt32LE(20 + jlen);
const bin = b.subarray(20 + jlen + 8, 20 + jlen + 8 + binLen);
for (const img of json.images || []) {
  if (img.bufferView === undefined) continue;
  const bv = json.bufferViews[img.bufferView];
  const at = bv.byteOffset || 0;
  img.uri = `data:${img.mimeType};base64,` + bin.subarray(at, at + bv.byteLength).toString('base64');
  delete img.bufferView;
  delete img.mimeType;
}
json.buffers[0].uri = 'data:application/octet-stream;base64,' + bin.toString('base64');
fs.writeFileSync(out, JSON.stringify(json));
