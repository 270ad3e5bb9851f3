#!/bin/sh
# Dies of a signal on every input, as a segfaulting parser would. usage: crasher.sh INPUT OUTPUT
kill -SEGV $$
