/* One streaming pass over an input's data (the performance issue, "streaming validation").
 *
 * Format modules do not load whole tensors to check data-dependent rules (padding bits, scale
 * finiteness, g_idx ranges, Q4_0 d). During check() they register a scan of the bytes they need
 * with pc_scan_add(); pc_validate() then reads every file once, front to back, in bounded windows
 * (PC_SCAN_WINDOW per worker), feeds each window to SHA-256 when --hash asked for per-file digests,
 * and hands the overlapping part of each window to the registered scans. Files are shared among
 * worker threads (one per core), so shards are validated and hashed in parallel; peak memory is
 * the windows plus one carried unit per active scan, whatever the checkpoint size.
 *
 * Threading contract: chunk() runs on a worker thread and may touch only its own `arg`; it
 * must not report. finish() runs afterwards on the calling thread, in registration order (so the
 * findings are deterministic), and reports through cx. */
#ifndef PC_SCAN_H
#define PC_SCAN_H

#include "packcheck_internal.h"

#define PC_SCAN_WINDOW (8u << 20)   /* bytes read per step per worker */
#define PC_SCAN_MAX_UNIT (1u << 20) /* largest unit a scan may ask for */
#define PC_SCAN_MAX_THREADS 8

/* Called with whole units: off (relative to the tensor's first byte) and n are multiples of the
 * unit, except for a final short piece when the scanned range is not. Return non-zero to stop
 * receiving data for this scan (e.g. after the first defect). */
typedef int (*pc_scan_chunk_fn)(void *arg, uint64_t off, const uint8_t *p, size_t n);
/* After the pass: report findings. `complete` is false when the data could not all be read (the
 * pass then also records an I/O error on cx). */
typedef void (*pc_scan_finish_fn)(void *arg, bool complete, pc_input *in, pc_ctx *cx);

/* Scan bytes [begin, end) of tensor t (tensor-relative, end <= t->nbytes) in units of `unit`
 * bytes (1..PC_SCAN_MAX_UNIT). `arg` is owned by the caller unless free_arg is given, which the
 * pass calls once it is done with it. Returns -1 when out of memory (the caller should mark cx). */
int pc_scan_add(pc_input *in, const pc_tensor *t, uint64_t begin, uint64_t end, size_t unit,
                pc_scan_chunk_fn chunk, pc_scan_finish_fn finish, void (*free_arg)(void *), void *arg);

/* Run the pass: every registered scan, plus per-file SHA-256 into in->files[i].sha256 when
 * in->hash_files is set. Calls every finish(). Called by pc_validate; scans registered afterwards
 * belong to the next call. Returns -1 on an I/O error (recorded on cx). */
int pc_scan_run(pc_input *in, pc_ctx *cx);

/* Release registered scans that never ran (pc_input_free calls this). */
void pc_scan_free(pc_input *in);

#endif

/* Ready-made scans for the common data rules (core/scan_checks.c). Each evaluates `rule_id` and,
 * after the pass, reports it once per tensor with the count of offending elements and the file
 * offset of the first. Return -1 when out of memory. */

/* Every element of a float tensor (F64, F32, F16, BF16, F8_*) is finite; with `positive`, also > 0.
 * Non-float tensors are ignored (dtype rules are the caller's). */
int pc_scan_floats_finite(pc_input *in, pc_ctx *cx, const pc_tensor *t, const char *rule_id, bool positive);

/* Every element of an integer tensor (I8..I64, U8..U64) lies in [lo, hi]. */
int pc_scan_ints_in_range(pc_input *in, pc_ctx *cx, const pc_tensor *t, const char *rule_id, int64_t lo, int64_t hi);
