# The walls of the house (README "Layout"), checked on the sources: each room includes only the rooms
# it may depend on. A new #include across a wall fails this test.
#   core       nothing
#   kernels    nothing (bit-level code knows no files, rules or formats)
#   container  core (bytes and dtypes; it knows no formats and no validation)
#   formats    core, kernels (no reports, harness or CLI)
#   validate   core (the driver reaches formats through packcheck.h's table)
#   report     core (renders the JSON document; knows no containers or formats)
#   harness    core, container, kernels, report, validate
#   cli        core, harness, report, validate
PC=$1 SRC=$2 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
allowed() {
    case $1 in
    core|kernels) echo "" ;;
    container|validate|report) echo "core" ;;
    formats) echo "core kernels" ;;
    harness) echo "core container kernels report validate" ;;
    cli) echo "core harness report validate" ;;
    tools) echo "core container kernels formats harness report validate" ;;
    *) echo "?" ;;
    esac
}
for dir in "$SRC"/validator/src/*/; do
    room=$(basename "$dir")
    ok=$(allowed "$room")
    checks=$((checks + 1))
    [ "$ok" = "?" ] && { echo "FAIL: room $room has no wall in walls.sh"; fails=$((fails + 1)); continue; }
    # every '#include "../X/...' in the room's own files (sub-folders such as kernels/fast included)
    for inc in $(grep -rhoE '#include "(\.\./)+[a-z_]+/' "$dir" | sed -E 's|#include "(\.\./)+||; s|/$||' | sort -u); do
        [ "$inc" = "$room" ] && continue
        case " $ok " in *" $inc "*) ;; *)
            where=$(grep -rlE "#include \"(\.\./)+$inc/" "$dir" | sed "s|$SRC/||" | tr '\n' ' ')
            echo "FAIL: $room includes $inc ($where)"; fails=$((fails + 1)) ;;
        esac
    done
done
finish
