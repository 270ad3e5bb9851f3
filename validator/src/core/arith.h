/* Checked arithmetic: every size read from a file passes through these before it sizes an
 * allocation, a loop or an offset. Each returns false on overflow and leaves *r unspecified. */
#ifndef PC_ARITH_H
#define PC_ARITH_H

#include <stdbool.h>
#include <stdint.h>

static inline bool pc_mul_u64(uint64_t a, uint64_t b, uint64_t *r) { return !__builtin_mul_overflow(a, b, r); }
static inline bool pc_add_u64(uint64_t a, uint64_t b, uint64_t *r) { return !__builtin_add_overflow(a, b, r); }

/* ceil(a / b) for b > 0, without the a + b - 1 overflow. */
static inline uint64_t pc_ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

/* Round a up to a multiple of align (align > 0). */
static inline bool pc_pad_u64(uint64_t a, uint64_t align, uint64_t *r)
{
    uint64_t rem = a % align;
    return rem == 0 ? (*r = a, true) : pc_add_u64(a, align - rem, r);
}

#endif
