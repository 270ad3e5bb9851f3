#!/bin/sh
# Refuses everything. usage: reject_all.sh INPUT OUTPUT
echo "reject_all: refusing $1" >&2
exit 1
