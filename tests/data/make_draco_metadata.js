// make_draco_metadata.js - the two Draco streams with metadata in tests/data (grid_meta_{edgebreaker,sequential}.drc):
// a 4 x 4 grid (16 points, 18 triangles) with geometry metadata (a string and an int) and metadata on its POSITION
// attribute, so the header carries the metadata flag. Encoder: npm draco3dgltf (Google's Draco, the encoder
// gltf-transform uses). Run: npm install draco3dgltf && node tests/data/make_draco_metadata.js OUT_DIR
const draco3d = require('draco3dgltf');
(async () => {
  const m = await draco3d.createEncoderModule({});
  const enc = new m.Encoder(), mb = new m.MeshBuilder(), mesh = new m.Mesh(), meta = new m.MetadataBuilder();
  // a 4x4 grid, 18 triangles
  const N = 4, pos = [], idx = [];
  for (let y = 0; y < N; y++) for (let x = 0; x < N; x++) pos.push(x, y, 0);
  for (let y = 0; y < N - 1; y++) for (let x = 0; x < N - 1; x++) { const a = y*N+x; idx.push(a, a+1, a+N, a+1, a+N+1, a+N); }
  mb.AddFacesToMesh(mesh, idx.length / 3, new Uint32Array(idx));
  const pid = mb.AddFloatAttributeToMesh(mesh, m.POSITION, pos.length / 3, 3, new Float32Array(pos));
  const md = new m.Metadata();
  meta.AddStringEntry(md, 'name', 'skinkit metadata test');
  meta.AddIntEntry(md, 'answer', 42);
  mb.AddMetadata(mesh, md);
  const amd = new m.Metadata();
  meta.AddStringEntry(amd, 'semantic', 'POSITION');
  mb.SetMetadataForAttribute(mesh, pid, amd);
  for (const method of [m.MESH_EDGEBREAKER_ENCODING, m.MESH_SEQUENTIAL_ENCODING]) {
    enc.SetEncodingMethod(method);
    const out = new m.DracoInt8Array();
    const len = enc.EncodeMeshToDracoBuffer(mesh, out);
    const buf = Buffer.alloc(len); for (let i = 0; i < len; i++) buf[i] = out.GetValue(i);
    const name = method === m.MESH_EDGEBREAKER_ENCODING ? 'grid_meta_edgebreaker.drc' : 'grid_meta_sequential.drc';
    require('fs').writeFileSync(require('path').join(process.argv[2] || '.', name), buf);
    console.log(name, len, buf.slice(0, 16).toString('hex'));
  }
})();
