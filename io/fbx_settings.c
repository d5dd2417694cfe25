/* fbx_settings.c - declares a scene's frame (unit and axes: skio_frame) in the GlobalSettings of an FBX file Assimp
 * 5.2.5 wrote. Its exporter always declares UnitScaleFactor 1 (centimetres) with Y up, whatever the scene: a glTF
 * character (metres) written as .fbx imported into Blender at 1/100 of its size (CesiumMan: 1.5 cm tall), and one read
 * from an FBX in other units or axes changed meaning. The values are fixed-size properties of existing records
 * (P records under GlobalSettings/Properties70), so the binary file is patched in place (ASCII FBX is that file as
 * text: fbx_ascii_write.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbx_fixup.h"
#include "skio_fbx_tree.h"

/* The values to declare: name, 'I' (int) or 'D' (double), value. */
typedef struct setting {
  const char* name;
  char type;
  double value;
} setting;

static int axis_index(int8_t a) { return (a < 0 ? -a : a) - 1; }
static int axis_sign(int8_t a) { return a < 0 ? -1 : 1; }

/* The coord axis: the frame's own, else the right-handed one from its up and front axes. */
static int8_t coord_axis(const skio_frame* f) {
  if (f->coord) return f->coord;
  const int u = axis_index(f->up), v = axis_index(f->front);
  const int w = 3 - u - v; /* the remaining axis; its sign makes (w, u, v) right-handed */
  const int even = (u == (w + 1) % 3) ? 1 : -1;
  return (int8_t)(even * axis_sign(f->up) * axis_sign(f->front) * (w + 1));
}

static int fill(const skio_frame* f, setting out[8]) {
  const int8_t coord = coord_axis(f);
  const setting s[8] = {{"UpAxis", 'I', axis_index(f->up)},      {"UpAxisSign", 'I', axis_sign(f->up)},
                        {"FrontAxis", 'I', axis_index(f->front)}, {"FrontAxisSign", 'I', axis_sign(f->front)},
                        {"CoordAxis", 'I', axis_index(coord)},    {"CoordAxisSign", 'I', axis_sign(coord)},
                        {"UnitScaleFactor", 'D', f->unit_cm},     {"OriginalUnitScaleFactor", 'D', f->unit_cm}};
  memcpy(out, s, sizeof s);
  return 8;
}

static void put_le(uint8_t* p, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

int skio_fbx_set_frame(uint8_t* data, size_t n, const skio_frame* f, uint32_t* out_set, skc_err* err) {
  skio_fbx_tree t;
  int rc = skio_fbx_tree_parse(data, n, &t, err);
  if (rc) return rc;
  setting s[8];
  const int ns = fill(f, s);
  uint32_t set = 0;
  const uint32_t gs = skio_fbx_child(&t, SKIO_FBX_NONE, "GlobalSettings", SKIO_FBX_NONE);
  const uint32_t props = gs == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(&t, gs, "Properties70", SKIO_FBX_NONE);
  for (uint32_t p = props == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(&t, props, "P", SKIO_FBX_NONE);
       p != SKIO_FBX_NONE; p = skio_fbx_child(&t, props, "P", p)) {
    skio_fbx_prop v;
    for (int k = 0; k < ns; ++k) {
      if (!skio_fbx_prop_str_is(&t, p, 0, s[k].name) || !skio_fbx_prop_at(&t, p, 4, &v)) continue;
      uint8_t* at = data + (v.p - t.data);
      if (v.type == 'I' && s[k].type == 'I') {
        put_le(at, (uint32_t)(int32_t)s[k].value, 4);
      } else if (v.type == 'D' && s[k].type == 'D') {
        uint64_t bits;
        memcpy(&bits, &s[k].value, sizeof bits);
        put_le(at, bits, 8);
      } else {
        continue;
      }
      set |= 1u << k;
    }
  }
  skio_fbx_tree_free(&t);
  if (out_set) *out_set = set;
  return SKC_OK;
}
