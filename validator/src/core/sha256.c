#include "sha256.h"

#include "file.h"

#include <openssl/evp.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>

int pc_sha256_init(pc_sha256 *h)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (!c || EVP_DigestInit_ex(c, EVP_sha256(), NULL) != 1) { EVP_MD_CTX_free(c); h->md = NULL; return -1; }
    h->md = c;
    return 0;
}

void pc_sha256_update(pc_sha256 *h, const void *p, size_t n) { EVP_DigestUpdate(h->md, p, n); }

void pc_sha256_final_hex(pc_sha256 *h, char hex[65])
{
    unsigned char d[32];
    unsigned len = 0;
    EVP_DigestFinal_ex(h->md, d, &len);
    EVP_MD_CTX_free(h->md);
    h->md = NULL;
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

void pc_sha256_hex(const void *p, size_t n, char hex[65])
{
    pc_sha256 h;
    if (pc_sha256_init(&h)) abort();
    pc_sha256_update(&h, p, n);
    pc_sha256_final_hex(&h, hex);
}

int pc_sha256_file_hex(const char *path, char hex[65])
{
    const char *why;
    int fd = pc_open_regular(path, &why); /* never blocks on a FIFO planted in a corpus */
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) { if (fd >= 0) close(fd); return -1; }
    enum { WINDOW = 1 << 20 };
    unsigned char *buf = malloc(WINDOW);
    pc_sha256 h;
    if (!buf || pc_sha256_init(&h)) { free(buf); fclose(f); return -1; }
    size_t got;
    while ((got = fread(buf, 1, WINDOW, f)) > 0) pc_sha256_update(&h, buf, got);
    int err = ferror(f);
    fclose(f);
    free(buf);
    pc_sha256_final_hex(&h, hex);
    return err ? -1 : 0;
}
