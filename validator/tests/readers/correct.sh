#!/bin/sh
# The correct reader: packcheck's own unpack. usage: correct.sh PACKCHECK INPUT OUTPUT [PROFILE]
exec "$1" unpack "$2" --out "$3" --profile "${4:-strict}"
