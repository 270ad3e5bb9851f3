#!/bin/sh
# Hostile: its output is a FIFO nobody writes (opening it would block forever); with write access
# to its input it also replaces the input file by a FIFO. usage: fifo_writer.sh INPUT OUTPUT
[ -f "$1" ] && rm -f "$1" 2>/dev/null && mkfifo "$1" 2>/dev/null
mkfifo "$2"
exit 0
