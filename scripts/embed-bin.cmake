# Build step: turn a committed binary data file into a C array, after checking its pinned SHA-256
# (so a changed or truncated data file fails the build instead of decoding wrongly).
# -DIN=file -DOUT=file.c -DSYMBOL=name -DSHA256=hex -DSIZE=bytes
file(SHA256 ${IN} got)
if(NOT got STREQUAL SHA256)
  message(FATAL_ERROR "${IN}: sha256 ${got}, pinned ${SHA256} (regenerate with generators/iq_grids.py and re-pin)")
endif()
file(SIZE ${IN} n)
if(NOT n EQUAL SIZE)
  message(FATAL_ERROR "${IN}: ${n} bytes, expected ${SIZE}")
endif()
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
file(WRITE ${OUT}.tmp "/* generated from ${IN} by scripts/embed-bin.cmake */\n#include <stdint.h>\nextern const uint8_t ${SYMBOL}[${SIZE}];\nconst uint8_t ${SYMBOL}[${SIZE}] = {${hex}};\n")
file(RENAME ${OUT}.tmp ${OUT})
