/* cli_common.h - shared declarations of the skinkit command-line tool (uses only skinkit.h). */
#ifndef SK_CLI_COMMON_H
#define SK_CLI_COMMON_H

#include <stdio.h>

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

/* JSON string output with escaping. */
void cli_json_string(FILE* f, const char* s);
/* 1 when both paths name the same existing file (by real path): commands never write over their input. */
int cli_same_file(const char* a, const char* b);

#endif
