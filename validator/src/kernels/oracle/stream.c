/* Oracle: a literal transcription of the seed spec card's reader (unpack_pack_quantized), one field
 * at a time, straddle branch included:
 *
 *     bit = i * b; word = bit // 32; off = bit % 32
 *     lo_bits = min(32 - off, b)
 *     field = (words[word] >> off) & ((1 << lo_bits) - 1)
 *     if lo_bits < b: field |= (words[word + 1] & ((1 << (b - lo_bits)) - 1)) << lo_bits
 *
 * The seed returns the signed code (field - 2^(b-1)); kernels return the unsigned field, which is the
 * contract's M.codes. Words are little-endian 32-bit (FORMATS.md conventions) and are assembled byte
 * by byte, so the oracle is host-endian independent and never reads past the ceil(count*b/8) bytes
 * the caller guarantees (a byte past that holds no bit of any field and is read as zero). */
#include "../kernels.h"

/* Word w of the stream, as unsigned (never sign-extended), from the bytes below nbytes. */
static uint32_t stream_word(const uint8_t *src, size_t nbytes, size_t w)
{
    uint32_t v = 0;
    for (unsigned k = 0; k < 4; k++) {
        size_t at = w * 4 + k;
        if (at < nbytes) v |= (uint32_t)src[at] << (8 * k);
    }
    return v;
}

PC_ORACLE_FN void pc_stream_unpack_ref(const uint8_t *src, unsigned b, size_t count, uint8_t *out)
{
    size_t nbytes = (count * b + 7) / 8;
    for (size_t i = 0; i < count; i++) {
        size_t bit = i * b;
        size_t word = bit / 32;
        unsigned off = (unsigned)(bit % 32);
        unsigned lo_bits = 32 - off < b ? 32 - off : b;
        uint32_t field = (stream_word(src, nbytes, word) >> off) & ((1u << lo_bits) - 1);
        if (lo_bits < b) {
            unsigned hi_bits = b - lo_bits;
            field |= (stream_word(src, nbytes, word + 1) & ((1u << hi_bits) - 1)) << lo_bits;
        }
        out[i] = (uint8_t)field;
    }
}
