#!/bin/sh
# Hostile: 70 MiB of output, then a sanitizer report, then more output, then the right view and
# exit 0. A memory error reported anywhere in the stream is a crash. usage: log_flooder.sh PACKCHECK INPUT OUTPUT
head -c 73400320 /dev/zero | tr '\0' 'x'
echo
echo '==7==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000011' >&2
head -c 4096 /dev/zero | tr '\0' 'y'
exec sh "$(dirname "$0")/correct.sh" "$1" "$2" "$3" >/dev/null
