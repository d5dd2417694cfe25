/* skc_par.h - a parallel loop over chunks that never waits for a thread that has not started.
 *
 * Made for calls of a few milliseconds from a busy host (the addon's weight tools inside Blender, whose own threads
 * and the user's other programs keep the cores busy). An OpenMP region ends at a barrier that every thread of the
 * team must reach: when the core a worker needs is taken, the caller waits for the scheduler to run that worker,
 * although the caller could have done its share. Measured in Blender 3.4 on a 2-core guest with another process
 * building (docs/addon.md, session 72): sk_records_edit's Quantize on 92k vertices 36 ms with two OpenMP threads,
 * 5 ms with one. Here the caller takes chunks itself from the start; pool threads join while there are chunks left
 * and the caller waits only for the chunks they took. */
#ifndef SKC_PAR_H
#define SKC_PAR_H

#include <stdbool.h>
#include <stddef.h>

typedef struct skc_par_job skc_par_job;

/* The body of one participant: slot 0 is the caller, 1..slots-1 pool threads that joined (each slot at most once
 * per run); it takes chunks with skc_par_take until that returns false. */
typedef void (*skc_par_body)(void* ctx, unsigned slot, skc_par_job* job);

/* The next chunk index (< chunks) into *k, or false when every chunk has been handed out (or skc_par_stop). */
bool skc_par_take(skc_par_job* job, size_t* k);

/* Hands out no more chunks (a participant failed); the run still waits for the chunks in progress. */
void skc_par_stop(skc_par_job* job);

/* Runs body on the calling thread and on up to slots - 1 pool threads (started on first use, kept asleep between
 * runs) until the chunks 0..chunks-1 are all taken and done. With slots <= 1, one chunk, or the pool busy with
 * another caller's run, only the caller works. Returns the number of participants (1..slots). */
unsigned skc_par_run(size_t chunks, unsigned slots, skc_par_body body, void* ctx);

#endif
