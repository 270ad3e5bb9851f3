#!/bin/sh
# Does nothing, slowly (issue 30 items 2, 3): waits (bounded) until the test puts a file `go` beside
# its OUTPUT, then accepts without writing anything. A case it passes was answered by someone else.
# usage: waiter.sh MARK INPUT OUTPUT   (MARK names it in `ps`)
go=$(dirname "$3")/go
i=0
while [ ! -e "$go" ] && [ "$i" -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
exit 0
