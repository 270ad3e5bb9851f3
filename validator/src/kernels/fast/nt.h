/* Streaming (non-temporal) f32 output: the one place that decides when a kernel's output bypasses
 * the caches, and the tile driver that gives every f32 kernel that path without a copy per kernel.
 *
 * Why: an ordinary store to a line not in cache first reads the line (read-for-ownership), so a
 * decode whose output is far larger than the caches moves 1 B in + 1 B read + 1 B out per output
 * byte; streaming stores drop the read (PERFORMANCE.md 3.5: +45 % to DRAM). Below the threshold the
 * output is likely read back from cache by the caller, where a streamed line would be missing.
 *
 * Two ways to use it:
 *   - a kernel with its own streaming variant (Q4_0, NVFP4/MXFP4 E2M1, bnb NF4/FP4, MLX affine)
 *     asks pc_nt_wanted() and, when true, runs its variant with _mm256_stream_ps and a final fence;
 *   - every other f32 kernel runs through pc_f32_streamed(): parts of the output are decoded into
 *     an L1-resident tile by the kernel as it is, then streamed out by pc_nt_copy_f32(). The bytes
 *     written are the kernel's own, so oracle equality carries over unchanged. */
#ifndef PC_KERNELS_NT_H
#define PC_KERNELS_NT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Streaming stores exist on x86-64 builds with SIMD; elsewhere pc_nt_wanted() is always false. */
#if defined(__x86_64__) && !defined(PC_NO_SIMD)
#define PC_NT_X86 1
#endif

/* f32 outputs of at least this many bytes (twice L2) stream. */
#define PC_NT_MIN_BYTES ((size_t)1 << 20)
/* The tile: 16 KiB of f32, half of L1d, so the kernel's input and the tile stay in L1 together. */
#define PC_NT_TILE_FLOATS ((size_t)4096)

/* Should an f32 output of `bytes` at `out` be written with streaming stores? True from
 * PC_NT_MIN_BYTES on, when `out` is 32-byte aligned (what _mm256_stream_ps needs; loaders' buffers
 * are page-aligned) and its pages are already backed (a freshly allocated result is faster with
 * plain stores: see nt.c), on x86-64; PACKCHECK_NT=0 in the environment turns it off. */
bool pc_nt_wanted(const void *out, size_t bytes);
/* How many times pc_nt_wanted said yes in this process: tests check that a kernel took the path. */
size_t pc_nt_taken(void);

/* dst[0..n) = src[0..n) with streaming stores (dst any alignment: the unaligned head and the tail
 * are plain stores). No fence: pc_nt_fence() once after the last copy. */
void pc_nt_copy_f32(float *dst, const float *src, size_t n);
/* Order the streamed lines before anyone reads the output (sfence). */
void pc_nt_fence(void);

/* Part [r, r + nr) x [c0, c0 + nc) of a rows x cols f32 output, written densely (nc per row) to tile. */
typedef void (*pc_f32_part_fn)(const void *ctx, size_t r, size_t nr, size_t c0, size_t nc, float *tile);

/* Write the rows x cols f32 matrix `out` (row-major) part by part through a tile: whole rows while a
 * row fits the tile, else column chunks of one row, each a multiple of col_unit elements (the last
 * one ends the row; col_unit > the tile is treated as the tile's size rounded to 8). Streams when
 * pc_nt_wanted(out, rows * cols * 4), else calls part once for everything, straight into out. */
void pc_f32_streamed(size_t rows, size_t cols, size_t col_unit, pc_f32_part_fn part, const void *ctx, float *out);

#endif
