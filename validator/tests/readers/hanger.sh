#!/bin/sh
# Never answers, and leaves a background child behind: certify must kill the whole process group.
# usage: hanger.sh MARKER INPUT OUTPUT   (MARKER lets a test look for leftovers with ps)
sh -c 'sleep 3600; :' "hanger-$1" &
sleep 3600
