#!/bin/sh
# A reader written from the docs that raises on every input, like a Python loader whose import
# fails: exit 1 ("refused") everywhere. It passes every negative case and reads nothing, so it is
# never certified, whatever the expected-failure list says. usage: raise_always.sh INPUT OUTPUT
echo 'Traceback (most recent call last):' >&2
echo 'NotImplementedError: this loader reads nothing' >&2
exit 1
