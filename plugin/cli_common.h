/* cli_common.h - shared declarations of the skinkit command-line tool (uses only skinkit.h). */
#ifndef SK_CLI_COMMON_H
#define SK_CLI_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "skinkit.h"

/* One sub-command. To add one: write plugin/cli_<name>.c with its run function and add a row to k_commands in
 * cli_main.c. run gets argv starting at the command name; it returns the process exit status. */
typedef struct cli_command {
  const char* name;
  const char* summary; /* one line for `skinkit --help` */
  const char* usage;   /* full help for `skinkit <name> --help` */
  int (*run)(int argc, char** argv);
} cli_command;

int cli_info(int argc, char** argv);
int cli_validate(int argc, char** argv);
int cli_convert(int argc, char** argv);
int cli_demo(int argc, char** argv);
int cli_report(int argc, char** argv);
int cli_sample(int argc, char** argv);
extern const char cli_info_usage[];
extern const char cli_validate_usage[];
extern const char cli_convert_usage[];
extern const char cli_demo_usage[];
extern const char cli_report_usage[];
extern const char cli_sample_usage[];
int cli_weights(int argc, char** argv);
extern const char cli_weights_usage[];
int cli_bind(int argc, char** argv);
extern const char cli_bind_usage[];
/* SK_CLI_SECTION declarations: add run functions and usage texts above this line */

/* JSON string output with escaping; always valid UTF-8 (invalid bytes become U+FFFD, controls \u00XX). */
void cli_json_string(FILE* f, const char* s);
/* Writes s with every invalid UTF-8 sequence replaced by U+FFFD (for JSON text passed through unparsed). */
void cli_utf8_fputs(FILE* f, const char* s);
/* 1 when both paths name the same existing file (same device and inode, so also through hard and symbolic
 * links): commands never write over their input and exit 2. */
int cli_same_file(const char* a, const char* b);
/* 1 when a and b name the same file, existing or not: the same file (cli_same_file), or the same name in the same
 * folder (folders compared by real path). For an output that the command has yet to write. */
int cli_same_target(const char* a, const char* b);

/* ---- a mesh's optional vertex streams (cli_streams.c), for commands that rebuild a scene ---- */
enum { CLI_STREAMS = 5 };
typedef struct cli_streams {
  float* data[CLI_STREAMS]; /* normals, tangents, uv0, uv1, colours; NULL where the mesh has none */
  const char* node_name;    /* the mesh's node (borrowed from the source scene) */
} cli_streams;
/* Copies mesh m's streams out of s (and notes its node name): 0, or 1 when out of memory (nothing left allocated). */
int cli_streams_read(const sk_scene* s, uint32_t m, cli_streams* out);
void cli_streams_free(cli_streams* st);
/* Points d's optional stream fields at st's copies, and its node name at the source's. */
void cli_streams_desc(const cli_streams* st, sk_mesh_desc* d);

/* ---- the armature of skinned meshes (cli_armature.c) ---- */
/* The deform joints (deform: joint_count bytes) below the root of the armature the weights of the given meshes use
 * (the lowest common ancestor of their weighted joints, raised through deform parents; *out_root), as a malloc'd
 * mask; NULL (keep deform) when they weight nothing, the joints have no common ancestor, that is every deform joint,
 * or memory runs out. */
uint8_t* cli_armature_mask(sk_scene* s, const uint32_t* meshes, uint32_t count, const uint8_t* deform,
                           int32_t* out_root);

/* The name of the object (node) that draws mesh m, as `info` shows it and `bind --meshes` takes it: NULL when the
 * file names none, when it is the mesh's own name, or an importer's synthetic node ("<MD5_Mesh>", "<SMD_root>"). */
const char* cli_mesh_object(sk_scene* s, uint32_t m);

/* ---- the rest pose of a scene's meshes (cli_fit.c) ---- */
/* Mesh m's vertex positions in the rest pose (3 floats each): an unskinned mesh's as placed, a skinned one's moved
 * from its bind space by its skin. out NULL: the float count; 0 when capacity is short or memory runs out. */
size_t cli_rest_positions(sk_scene* s, uint32_t m, float* out, size_t capacity);

/* ---- meshes that are one surface (cli_surface.c: an object split by material) ---- */
/* group[m] = the first mesh of m's surface (m itself when alone), over the chosen meshes (NULL: all); malloc'd, NULL
 * when out of memory. The rule is in cli_surface.c. */
uint32_t* cli_surface_groups(const sk_scene* s, const uint8_t* chosen);
/* Meshes in m's group (1 when group is NULL). */
uint32_t cli_surface_size(const uint32_t* group, uint32_t nm, uint32_t m);
/* The meshes of one group as one mesh: positions and indices concatenated in mesh order. */
typedef struct cli_surface {
  uint32_t count;   /* meshes */
  uint32_t* meshes; /* their scene indices, ascending */
  size_t* first;    /* count + 1: first vertex of each in the joined mesh, then nv */
  size_t nv, ni;
  float* pos;       /* 3 * nv */
  uint32_t* idx;    /* ni */
} cli_surface;
/* Reads group `leader` (a value of group[]); 0, or 1 when out of memory (free it either way). */
int cli_surface_read(const sk_scene* s, const uint32_t* group, uint32_t leader, cli_surface* u);
void cli_surface_free(cli_surface* u);
/* The joined skin whole (u->nv vertices) cut into skins[k] (mesh k's vertex count), or skins[k] joined into whole;
 * 0, or 1 with err set. */
int cli_surface_split(const cli_surface* u, const sk_skin* whole, sk_skin* const* skins, sk_error* err);
int cli_surface_join(const cli_surface* u, sk_skin* const* skins, sk_skin* whole, sk_error* err);
/* cli_surface_read, then *skins (u->count: each mesh's own skin, NULL where it has none; free()) and an empty joined
 * skin *whole of the scene's joints; 0, or 1 with err set (free what was made either way). */
int cli_surface_open(sk_scene* s, const uint32_t* group, uint32_t leader, cli_surface* u, sk_skin*** skins,
                     sk_skin** whole, sk_error* err);

/* ---- reading untrusted files, replacing output files (cli_load.c) ---- */
typedef struct cli_load_config {
  int isolate;            /* 0 with --no-isolate */
  double timeout;         /* --timeout S; < 0 = the command's default */
  uint32_t max_memory_mb; /* --max-memory MB (when memory_set) */
  int memory_set;
  int weld; /* --merge-corners 1, --keep-corners 0, else -1: sk_scene_weld after reading (want_weld) */
} cli_load_config;
extern cli_load_config cli_load_cfg;
extern const char cli_load_usage[]; /* the options above, appended to the usage of commands that read models */
extern const char cli_weld_usage[]; /* --keep-corners / --merge-corners, appended for those commands but validate */
/* 1 for the commands that read models (and take the options above). */
int cli_is_loader(const char* cmd);
/* Takes --no-isolate, --timeout S, --max-memory MB and (but for validate) --merge-corners / --keep-corners out of argv
 * (argv[0] = cmd) for the commands that read models; 0, or 2 after an error line for a bad value. */
int cli_take_load_flags(const char* cmd, int* argc, char** argv);
/* Sets a save's isolate and timeout_seconds for scene s: Assimp's FBX and Collada writers look every bone up from the
 * root (O(nodes x bones): a flat skeleton of 20,000 joints took the FBX writer 31 s), and its FBX writer spends
 * ~1 KB and ~7 us on every key of every joint (60 joints x 10,000 keys: 4.3 s and 578 MB; .dae 6.5 s), so a scene of
 * more than CLI_ISOLATED_WRITE_NODES joints, meshes and objects, or of more than CLI_ISOLATED_WRITE_KEYS joint keys
 * (each clip's key times x the joints), is written by them in a child process with reading's time limit
 * (--timeout S, default 60 s; none with --no-isolate). Smaller scenes are written here: the child's fresh pages cost
 * ~0.15 s on a 38k-vertex .fbx (0.32 -> 0.47 s), and such a scene cannot keep the writers long. */
#define CLI_ISOLATED_WRITE_NODES 4096u
#define CLI_ISOLATED_WRITE_KEYS 200000u
void cli_guard_save(const sk_scene* s, sk_save_options* o);
/* The memory limit for reading path, MiB (--max-memory, else 4096 or 32 x the file size; 0 = none). */
uint32_t cli_memory_limit_mb(const char* path);
/* Address space of this process in bytes, now (peak 0) or at its peak (1); 0 when unknown (/proc/self/status). */
uint64_t cli_address_space(int peak);
/* Limits this process's address space growth to mb MiB (setrlimit RLIMIT_AS; for worker processes). */
void cli_limit_memory(uint32_t mb);
/* 0 when path is a regular file; else 2 after one error line (missing, directory, FIFO, device, socket). */
int cli_check_input(const char* cmd, const char* path);
/* Loads a model contained (cli_load_cfg) into *out; out_path: what the command writes (NULL: none), which decides
 * the default of --merge-corners / --keep-corners (cli_load.c want_weld). 0, or 2 after one "skinkit CMD: reason"
 * line. */
int cli_load_scene(const char* cmd, const char* path, const char* out_path, sk_scene** out);
/* Around the library's reads and writes: stdout points at stderr (returns the saved descriptor, or -1 when it could
 * not), then back. Assimp 5.2.5 prints to stdout from inside its readers (its Ogre XML reader's "Skeleton is not a
 * valid root" on every skeleton), which would break `--json -`: stdout carries only what the command prints. */
int cli_stdout_aside(void);
void cli_stdout_back(int saved);
/* sk_scene_save between cli_stdout_aside and cli_stdout_back. */
sk_result cli_scene_save(sk_scene* s, const char* path, const sk_save_options* o, sk_error* err);
/* When stdout or stderr is a terminal, writes it through a filter that shows control characters (a hostile file's
 * names can hold terminal escape sequences) as \xHH (cli_term.c). Called once, first thing in main. */
void cli_guard_terminal(void);
/* What sk_scene_save said of the file out it wrote (its err.message on success: "; "-separated notes), one
 * "skinkit CMD: warning: OUT: ..." line per note; limit_hint (or NULL) follows a note about influences past glTF's
 * default limit (the command's options that keep them), sum_hint (or NULL) one about weights glTF's writer
 * renormalized because their sums were off 1. */
void cli_save_notes(const char* cmd, const char* out, const char* message, const char* limit_hint,
                    const char* sum_hint);
/* An output file written in memory and then replaced atomically ("-" = stdout). */
typedef struct cli_out {
  const char* path;
  FILE* f;
  char* data;
  size_t size;
} cli_out;
FILE* cli_out_open(cli_out* o, const char* path);
/* Closes and writes the file; 0, or 2 after one error line (the previous file is then unchanged). */
int cli_out_close(cli_out* o, const char* cmd);

/* ---- the file a message is about (cli_messages.c) ---- */
/* Errors and warnings after the read name their file as the read's do: "skinkit CMD: FILE: reason" and
 * "skinkit CMD: warning: FILE: reason", FILE being IN (the model read: its meshes and what is done to them) or OUT
 * (what is written). Each is one line; the newline is added. */
/* The model the command read (cli_load_scene sets it; commands that read otherwise call cli_set_input), or NULL. */
void cli_set_input(const char* path);
const char* cli_input(void);
/* "skinkit CMD: FILE: ..." and "skinkit CMD: warning: FILE: ..." (FILE NULL: no file named). */
void cli_file_error(const char* cmd, const char* file, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
void cli_file_warning(const char* cmd, const char* file, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same about the input (cli_input()). */
void cli_in_error(const char* cmd, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_in_warning(const char* cmd, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
/* A failed sk_scene_save of out: its message named by OUT (unless it starts with it already), or by IN when it is
 * about a mesh ("mesh \"x\": ...", one of the input's the writer refused). */
void cli_save_error(const char* cmd, const char* out, const char* message);

/* ---- strict arguments (cli_args.c): an argument error is one line ("skinkit CMD: ...") then
 * "see skinkit CMD --help" on stderr, and the command exits 2 -- never the whole help text. ---- */
/* Prints the error line (printf format) and the --help pointer; returns 2. */
int cli_arg_error(const char* cmd, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
/* The value after the option argv[*i] (advancing *i), or NULL after "OPTION needs a value". */
const char* cli_arg_value(const char* cmd, int argc, char** argv, int* i);
/* "unknown option -x" / "unexpected argument \"x\"" through cli_arg_error; returns 2. */
int cli_arg_unknown(const char* cmd, const char* arg);
#define CLI_OPEN_LO 1u /* cli_arg_real: lo itself is out of range */
#define CLI_OPEN_HI 2u /* cli_arg_real: hi itself is out of range */
/* Strict parsers, 1 on success: the whole string is the number (no blanks, no trailing text); integers are plain
 * decimal digits in [lo, hi]; reals are finite (no nan, inf, or overflow such as 1e999) and within the range. */
int cli_parse_u32(const char* s, uint32_t lo, uint32_t hi, uint32_t* out);
int cli_parse_real(const char* s, double lo, double hi, unsigned open, double* out);
/* The same, printing "FLAG needs ..., not \"S\"" through cli_arg_error on failure: 0, or 2. */
int cli_arg_u32(const char* cmd, const char* flag, const char* s, uint32_t lo, uint32_t hi, uint32_t* out);
int cli_arg_real(const char* cmd, const char* flag, const char* s, double lo, double hi, unsigned open, double* out);
int cli_arg_float(const char* cmd, const char* flag, const char* s, double lo, double hi, unsigned open, float* out);
/* 0 when the folder that would hold the output file path exists ("-" and bare names always); else 2 after one
 * "skinkit CMD: cannot write PATH: the folder DIR does not exist" line. */
int cli_check_output_dir(const char* cmd, const char* path);
/* Removes argv[i .. i+n-1] (argv[*argc] = NULL moves along); *argc -= n. */
void cli_argv_drop(int* argc, char** argv, int i, int n);
/* -o OUT, --output OUT and --output=OUT of the writers (convert, bind, weights, sample, pack) out of argv; OUT goes
 * back as the last positional argument (pack: "-o OUT"). 0, or 2 after one error line (no value, given twice).
 * Also, for every command but validate and report (whose parsers take it), "--" ends the options: it is dropped
 * and each later argument starting with '-' becomes "./ARG"; -o after "--" is a file name. */
int cli_take_output(const char* cmd, int* argc, char** argv);
/* Whether path's name is a glTF one: .glb, .gltf, or .vrm (a VRM avatar, a .glb by another name). */
int cli_gltf_name(const char* path);
/* OUT's extension names a format the library writes (sk_export_extension_supported): checked before the work of
 * bind and weights, which otherwise ran whole before the save refused a .x OUT. 0, or 2 after one error line. */
int cli_check_model_format(const char* cmd, const char* path);
/* As cli_check_output_dir, and "-" is refused: the writers write files, never stdout. 0, or 2. */
int cli_check_model_output(const char* cmd, const char* path);
/* validate's and report's --json [OUT|-]: argv[i] is --json=OUT (1), --json OUT (2), or a bare --json with nothing
 * or an option after it (1, *dest = "-"). Returns how many arguments it takes, 0 when argv[i] is not --json, -1
 * after an error line (--json= without a name). */
int cli_arg_json(const char* cmd, int argc, char** argv, int i, const char** dest);

/* ---- the JSON family (cli_json.c, docs/json.md, docs/schema/): every --json object starts with
 * {"schema":"skinkit.CMD","version":CLI_JSON_VERSION; the version changes only when a key is renamed or removed. */
#define CLI_JSON_VERSION 1
/* Prints {"schema":"skinkit.<name>","version":1 (no closing brace: the caller goes on with ",\"key\":..."). */
void cli_json_head(FILE* f, const char* name);
/* 1 when the n bytes at s are exactly one JSON value (RFC 8259 syntax, whitespace around it allowed; nesting up to
 * 512 levels), 0 otherwise. */
int cli_json_valid(const char* s, size_t n);
/* Runs one command: takes -o/--output (cli_take_output) and --json [FILE|-] / --json=FILE (commands printing JSON
 * on stdout; FILE then receives it atomically, when the command succeeds) out of argv first. */
int cli_run_command(const char* cmd, int (*run)(int, char**), int argc, char** argv);

#endif
