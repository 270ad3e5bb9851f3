# The walls of the house, checked on the real objects of the library: a room's object files may
# reference only symbols defined in its own room or in the rooms README "Layout" lets it depend on
# (the block between the `walls:` markers, read from the README itself, so picture and check agree).
# An undeclared cross-room symbol fails this test, naming the object, the symbol and the room that
# defines it. The rooms' #includes are checked against the same picture.
#   usage: walls.sh PACKCHECK SOURCE_DIR TESTS_BINARY_DIR   (PC_OBJECTS overrides the object list)
PC=$1 SRC=$2 TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$SRC/validator/tests/cli/lib.inc"
OBJECTS=${PC_OBJECTS:-$3/../../pc_objects.txt}
README=${PC_README:-$SRC/README.md}

# The picture: lines "room -> dep dep ..." between "<!-- walls:begin -->" and "<!-- walls:end -->".
sed -n '/<!-- walls:begin -->/,/<!-- walls:end -->/p' "$README" | grep -E '^[a-z]+ +->' |
    sed -E 's/ +-> */ /; s/\(nothing\)//' > "$TMP/allowed"
checks=$((checks + 1))
[ -s "$TMP/allowed" ] || { echo "FAIL: no walls block in $README"; fails=$((fails + 1)); finish; exit; }
allowed() { awk -v r="$1" '$1 == r { $1 = ""; print; f = 1 } END { if (!f) print "?" }' "$TMP/allowed"; }
room_of() { # validator/src/<room>/... inside an object path
    case $1 in *validator/src/*) p=${1#*validator/src/}; echo "${p%%/*}" ;; *) echo embed ;; esac
}

# Defined and undefined global symbols per room, over the objects the build really links.
checks=$((checks + 1))
[ -s "$OBJECTS" ] || { echo "FAIL: object list $OBJECTS missing (configure the build)"; fails=$((fails + 1)); finish; exit; }
while IFS= read -r o; do
    [ -n "$o" ] || continue
    r=$(room_of "$o")
    nm -g --defined-only "$o" | awk 'NF == 3 { print $3 }' | sed "s|^|$r |" >> "$TMP/defs"
    nm -u "$o" | awk '{ print $NF }' | sed "s|^|$r $o |" >> "$TMP/uses"
done < "$OBJECTS"
# symbol -> defining room, joined with every use: "room owner symbol object" per cross-room use
awk '{ print $2, $1 }' "$TMP/defs" | sort -u -k1,1 > "$TMP/def_by_sym"
awk '{ print $3, $1, $2 }' "$TMP/uses" | sort -k1,1 > "$TMP/use_by_sym"
join "$TMP/use_by_sym" "$TMP/def_by_sym" | awk '$2 != $4 && $4 != "embed" { print $2, $4, $1, $3 }' > "$TMP/cross"
while read -r room owner sym obj; do
    ok=$(allowed "$room")
    case " $ok " in *" $owner "*) continue ;; esac
    echo "$room $owner $sym ${obj##*/validator/src/}" >> "$TMP/breaches"
done < "$TMP/cross"
checks=$((checks + 1))
if [ -s "$TMP/breaches" ]; then
    sort -u "$TMP/breaches" | while read -r room owner sym obj; do
        echo "FAIL: $room -> $owner: $obj uses $sym (README walls let $room depend on:$(allowed "$room"))"
    done
    fails=$((fails + 1))
fi

# Includes: "room/..." (root-relative) and "../room/..." forms, against the same picture.
for dir in "$SRC"/validator/src/*/; do
    room=$(basename "$dir")
    ok=$(allowed "$room")
    [ "$ok" = "?" ] && { checks=$((checks + 1)); echo "FAIL: room $room is not in README's walls block"; fails=$((fails + 1)); continue; }
    # unit tests beside a format (test_*.c) compose rooms like the CLI: not part of the library
    for inc in $(grep -rhoE --exclude='test_*.c' '#include "(\.\./)*(core|container|kernels|formats|validate|report|harness|cli)/' "$dir" |
                 sed -E 's|#include "(\.\./)*||; s|/$||' | sort -u); do
        [ "$inc" = "$room" ] && continue
        checks=$((checks + 1))
        case " $ok " in *" $inc "*) ;; *)
            where=$(grep -rlE --exclude='test_*.c' "#include \"(\.\./)*$inc/" "$dir" | sed "s|$SRC/||" | tr '\n' ' ')
            echo "FAIL: $room includes $inc ($where)"; fails=$((fails + 1)) ;;
        esac
    done
done
finish
