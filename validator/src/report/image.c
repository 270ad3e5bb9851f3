/* Tiny images for the HTML report: a matrix of small values as an uncompressed 24-bit BMP in a
 * data: URI (every browser shows it, no library needed), plus the base64 both ends use. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

static const char k_b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void pc_sb_base64(pc_sb *b, const uint8_t *p, size_t n)
{
    char q[5] = {0};
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        q[0] = k_b64[v >> 18 & 63];
        q[1] = k_b64[v >> 12 & 63];
        q[2] = i + 1 < n ? k_b64[v >> 6 & 63] : '=';
        q[3] = i + 2 < n ? k_b64[v & 63] : '=';
        pc_sb_puts(b, q);
    }
}

uint8_t *pc_base64_decode(const char *s, size_t *n)
{
    size_t len = strlen(s);
    uint8_t *o = malloc(len / 4 * 3 + 3), *q = o;
    if (!o) return NULL;
    uint32_t acc = 0;
    int bits = 0;
    for (; *s && *s != '='; s++) {
        const char *c = strchr(k_b64, *s);
        if (!c || !*s) { free(o); return NULL; }
        acc = acc << 6 | (uint32_t)(c - k_b64);
        bits += 6;
        if (bits >= 8) { bits -= 8; *q++ = (uint8_t)(acc >> bits); }
    }
    *n = (size_t)(q - o);
    return o;
}

/* A ramp through dark blue, teal, green and yellow: neighbouring codes stay distinguishable and a
 * scrambled pattern shows as broken stripes. Values past the ramp (a sign-extended code) are magenta. */
static void colour(unsigned v, unsigned levels, uint8_t rgb[3])
{
    static const uint8_t stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    if (v >= levels) { rgb[0] = 255; rgb[1] = 0; rgb[2] = 255; return; }
    double t = levels > 1 ? (double)v / (levels - 1) * 4 : 0;
    int i = (int)t;
    if (i >= 4) i = 3;
    double f = t - i;
    for (int c = 0; c < 3; c++) rgb[c] = (uint8_t)(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * f + 0.5);
}

static void put32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24); }

/* mode 0: values through the ramp; mode 1: difference mask of a against b (red where they differ). */
void pc_sb_bmp_uri(pc_sb *b, const uint8_t *a, const uint8_t *other, unsigned rows, unsigned cols, unsigned levels, int mode)
{
    unsigned stride = (cols * 3 + 3) / 4 * 4;
    size_t size = 54 + (size_t)stride * rows;
    uint8_t *img = calloc(size, 1);
    if (!img) return;
    img[0] = 'B'; img[1] = 'M';
    put32(img + 2, (uint32_t)size);
    put32(img + 10, 54);
    put32(img + 14, 40);
    put32(img + 18, cols);
    put32(img + 22, rows);
    img[26] = 1; img[28] = 24;
    put32(img + 34, (uint32_t)(size - 54));
    for (unsigned r = 0; r < rows; r++)
        for (unsigned c = 0; c < cols; c++) {
            uint8_t rgb[3];
            size_t i = (size_t)r * cols + c;
            if (mode == 1) {
                bool d = a[i] != other[i];
                rgb[0] = d ? 220 : 235; rgb[1] = d ? 30 : 235; rgb[2] = d ? 30 : 235;
            } else {
                colour(a[i], levels, rgb);
            }
            uint8_t *px = img + 54 + (size_t)(rows - 1 - r) * stride + c * 3; /* bottom-up, BGR */
            px[0] = rgb[2]; px[1] = rgb[1]; px[2] = rgb[0];
        }
    pc_sb_puts(b, "data:image/bmp;base64,");
    pc_sb_base64(b, img, size);
    free(img);
}
