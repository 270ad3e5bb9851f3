/* pc_png_colours FILE.png RRGGBB...: how many pixels of the first ROWS rows (env PNG_ROWS, default
 * all) have each colour exactly. For the browser tests' screenshot checks: a banner painted in a
 * colour shows up as pixels of that colour. 8-bit RGB/RGBA, non-interlaced (what Chromium writes). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: pc_png_colours FILE.png RRGGBB...\n"); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    static uint8_t buf[64 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (n < 33 || memcmp(buf, "\x89PNG\r\n\x1a\n", 8)) { fprintf(stderr, "not a PNG\n"); return 2; }
    uint32_t w = be32(buf + 16), h = be32(buf + 20);
    int depth = buf[24], ctype = buf[25], bpp = ctype == 6 ? 4 : ctype == 2 ? 3 : 0;
    if (depth != 8 || !bpp || buf[28] || w > 20000 || h > 20000) { fprintf(stderr, "unsupported PNG\n"); return 2; }
    uint8_t *idat = malloc(n);
    size_t ni = 0;
    for (size_t p = 8; p + 12 <= n;) {
        uint32_t len = be32(buf + p);
        if (len > n - p - 12) break;
        if (!memcmp(buf + p + 4, "IDAT", 4)) { memcpy(idat + ni, buf + p + 8, len); ni += len; }
        p += 12 + (size_t)len;
    }
    size_t stride = (size_t)w * bpp, rawn = (stride + 1) * h;
    uint8_t *raw = malloc(rawn), *img = calloc(stride * h + stride, 1);
    uLongf got = rawn;
    if (!idat || !raw || !img || uncompress(raw, &got, idat, ni) != Z_OK || got != rawn) { fprintf(stderr, "bad image data\n"); return 2; }
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *in = raw + y * (stride + 1) + 1;
        uint8_t *out = img + y * stride, *up = y ? out - stride : NULL;
        for (size_t x = 0; x < stride; x++) {
            int a = x >= (size_t)bpp ? out[x - bpp] : 0, b = up ? up[x] : 0, c = up && x >= (size_t)bpp ? up[x - bpp] : 0;
            int pred = 0;
            switch (in[-1]) {
            case 0: pred = 0; break;
            case 1: pred = a; break;
            case 2: pred = b; break;
            case 3: pred = (a + b) / 2; break;
            case 4: pred = paeth(a, b, c); break;
            default: fprintf(stderr, "bad filter\n"); return 2;
            }
            out[x] = (uint8_t)(in[x] + pred);
        }
    }
    const char *rows = getenv("PNG_ROWS");
    uint32_t maxy = rows ? (uint32_t)atoi(rows) : h;
    if (maxy > h) maxy = h;
    for (int k = 2; k < argc; k++) {
        unsigned long rgb = strtoul(argv[k], NULL, 16);
        size_t count = 0;
        for (uint32_t y = 0; y < maxy; y++)
            for (uint32_t x = 0; x < w; x++) {
                const uint8_t *p = img + y * stride + (size_t)x * bpp;
                count += ((unsigned long)p[0] << 16 | (unsigned long)p[1] << 8 | p[2]) == rgb;
            }
        printf("%s %zu\n", argv[k], count);
    }
    free(idat); free(raw); free(img);
    return 0;
}
