// validate.mjs - the Khronos glTF validator over files or folders (recursive, *.glb / *.gltf), by hand, outside
// the C suite (it needs node and the npm package gltf-validator):
//   npm install --prefix /tmp/gv gltf-validator
//   SKT_GLTF_KEEP=/tmp/gwk SKINKIT_ASSETS=$PWD/../shared/assets build/test_gltf_write   # keeps what it writes
//   NODE_PATH=/tmp/gv/node_modules node tests/gltf_validator/validate.mjs /tmp/gwk
// Prints one line per file (errors, warnings, issue codes with counts) and exits 1 when a file has an error that
// is not expected: ACCESSOR_WEIGHTS_NON_NORMALIZED in files written as-is (file name containing "asis": glTF
// requires sums of 1, as-is writes what is stored), NODE_MATRIX_NON_TRS for a sheared rest ("shear"), and
// ACCESSOR_VECTOR3_NON_UNIT where the source's own normals are not unit length (EXPECT_NON_UNIT=1).
import { createRequire } from 'module';
import fs from 'fs';
import path from 'path';
const require = createRequire(import.meta.url);
const validator = require('gltf-validator');

function* walk(p) {
  if (fs.statSync(p).isDirectory()) for (const e of fs.readdirSync(p).sort()) yield* walk(path.join(p, e));
  else if (/\.(glb|gltf)$/i.test(p)) yield p;
}

let bad = 0, files = 0;
for (const arg of process.argv.slice(2)) {
  for (const f of walk(arg)) {
    files++;
    const dir = path.dirname(f);
    const r = await validator.validateBytes(new Uint8Array(fs.readFileSync(f)), {
      uri: path.basename(f), maxIssues: 0,
      externalResourceFunction: (uri) => new Promise((ok, no) => {
        try { ok(new Uint8Array(fs.readFileSync(path.join(dir, decodeURIComponent(uri))))); } catch (e) { no(String(e)); }
      }),
    });
    const codes = {};
    let unexpected = 0;
    for (const m of r.issues.messages) {
      const key = `${['E', 'W', 'I', 'H'][m.severity]}:${m.code}`;
      codes[key] = (codes[key] || 0) + 1;
      if (m.severity !== 0) continue;
      const base = path.basename(f);
      if (m.code === 'ACCESSOR_WEIGHTS_NON_NORMALIZED' && /asis/.test(base)) continue;
      if (m.code === 'NODE_MATRIX_NON_TRS' && /shear/.test(base)) continue;
      if (m.code === 'ACCESSOR_VECTOR3_NON_UNIT' && process.env.EXPECT_NON_UNIT) continue;
      unexpected++;
    }
    if (unexpected) bad++;
    console.log(`${unexpected ? 'FAIL' : 'ok  '} ${f}: errors ${r.issues.numErrors} warnings ${r.issues.numWarnings} ${JSON.stringify(codes)}`);
  }
}
console.log(`${files} files, ${bad} with unexpected errors`);
process.exit(bad ? 1 : 0);
