/* libFuzzer harness: the bytes are one safetensors file. It is opened as a checkpoint input (the
 * header parser and every ST rule), validated (every format module that detects itself), and every
 * decodable module is decoded by the oracle and the fast path. Any crash, leak, hang, sanitizer
 * report or abort is a finding; a verdict of any kind is fine. */
#include "harness/logical.h"
#include "formats/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A memfd reused across runs: no disk traffic, and /proc/self/fd/N is a regular file's path. */
static int g_fd = -1;
static char g_path[64];

static int put_bytes(const uint8_t *data, size_t size)
{
    if (g_fd < 0) {
        g_fd = memfd_create("fuzz.safetensors", 0);
        if (g_fd < 0) { perror("memfd_create"); abort(); }
        snprintf(g_path, sizeof g_path, "/proc/self/fd/%d", g_fd);
    }
    if (ftruncate(g_fd, 0)) return -1;
    size_t done = 0;
    while (done < size) {
        ssize_t w = pwrite(g_fd, data + done, size - done, (off_t)done);
        if (w <= 0) return -1;
        done += (size_t)w;
    }
    return 0;
}

static void decode_all(const pc_input *in, pc_ctx *cx)
{
    for (size_t i = 0; i < in->nmodules; i++) {
        const pc_module *m = &in->modules[i];
        if (m->numel > (1u << 22)) continue; /* bounded work per input */
        for (int impl = PC_IMPL_REF; impl <= PC_IMPL_FAST; impl++) {
            uint8_t *codes = NULL;
            float *w = NULL;
            if (pc_logical_decode(in, m, (pc_impl)impl, &codes, &w, cx) == 0) { free(codes); free(w); }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (put_bytes(data, size)) return 0;
    for (int prof = PC_PROFILE_STRICT; prof <= PC_PROFILE_COMPAT; prof++) {
        pc_ctx cx;
        if (pc_ctx_init(&cx, (pc_profile)prof)) return 0;
        pc_input *in = pc_input_open(g_path, NULL, &cx);
        if (in) {
            pc_validate(in, &cx);
            if (!pc_rejected(&cx) && !cx.io_error) decode_all(in, &cx);
            /* the contract's verdict must be computable */
            (void)pc_input_format(in);
        }
        pc_input_free(in);
        pc_ctx_free(&cx);
    }
    return 0;
}
