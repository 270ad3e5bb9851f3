/* The unit tests' shared scaffolding: CHECK counts, a closing "N passed, N failed" line, scratch
 * folders. Each test_*.c is one program; it returns test_finish(). */
#ifndef PC_TESTLIB_H
#define PC_TESTLIB_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_pass, g_fail;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            g_pass++;                                                                              \
        } else {                                                                                   \
            if (++g_fail <= 50) { /* a broken kernel fails millions of checks: show the first */   \
                printf("FAIL %s:%d: ", __FILE__, __LINE__);                                        \
                printf(__VA_ARGS__);                                                               \
                printf("\n");                                                                      \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static inline int test_finish(void)
{
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : (g_pass ? 0 : 1); /* a test that checked nothing has failed */
}

/* One step of a seeded xorshift64 stream (random shapes and inputs, reproducible from the seed). */
static inline uint32_t test_xorshift(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (uint32_t)(*state >> 16);
}

/* The bits of a float, to compare results exactly (a NaN's payload and the sign of zero included). */
static inline uint32_t test_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* A fresh scratch folder under $TMPDIR (or /tmp); the caller removes what it writes. */
static inline const char *test_tmpdir(char *buf, size_t n, const char *name)
{
    const char *t = getenv("TMPDIR");
    snprintf(buf, n, "%s/pc-%s-XXXXXX", t && *t ? t : "/tmp", name);
    if (!mkdtemp(buf)) { perror("mkdtemp"); exit(2); }
    return buf;
}

#endif
