#!/bin/sh
# The correct reader: packcheck's own unpack. usage: correct.sh PACKCHECK INPUT OUTPUT [PROFILE]
# It writes what it decodes and ignores tensors it does not know (--allow-unchecked); with nothing
# decodable (unpack's exit 3, no file written) it refuses the input, as CONTRACT 5 asks of a reader.
"$1" unpack "$2" --out "$3" --profile "${4:-strict}" --allow-unchecked
rc=$?
[ "$rc" = 3 ] && exit 1
exit "$rc"
