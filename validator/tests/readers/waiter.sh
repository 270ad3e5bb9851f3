#!/bin/sh
# Does nothing, slowly (issue 30 items 2, 3): waits (bounded) until the test creates GO, then
# accepts without writing anything. A case it passes was answered by someone else.
# usage: waiter.sh MARK GO INPUT OUTPUT   (MARK names it in `ps`)
i=0
while [ ! -e "$2" ] && [ "$i" -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
exit 0
