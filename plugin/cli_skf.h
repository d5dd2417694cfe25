/* cli_skf.h - the .skf sub-commands of the skinkit CLI (plugin/cli_skf.c). */
#ifndef SK_CLI_SKF_H
#define SK_CLI_SKF_H

int cli_pack(int argc, char** argv);
int cli_unpack(int argc, char** argv);
/* `skinkit info FILE.skf [--json]`: header, meshes and chunk list of an .skf file (cli_info can delegate to it
 * when the file starts with the .skf magic: cli_skf_is_skf). */
int cli_skf_info(int argc, char** argv);
int cli_skf_is_skf(const char* path);
extern const char cli_pack_usage[];
extern const char cli_unpack_usage[];
extern const char cli_skf_info_usage[];

#endif
