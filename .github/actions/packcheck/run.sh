#!/bin/bash
# The action's main step (action.yml): runs packcheck validate or certify with the inputs from env,
# writes SARIF and annotations, and records the exit code as a step output. Never fails itself on a
# rejection: the SARIF upload runs first, the action's last step turns the exit code into the verdict.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${PACKCHECK:?}" "${GITHUB_OUTPUT:?}"
sarif=${PC_SARIF:-packcheck.sarif}
extra=()
[ -n "${PC_ARGS:-}" ] && read -r -a extra <<<"$PC_ARGS"
profile=(--profile "${PC_PROFILE:-strict}")

case "${PC_MODE:-validate}" in
validate)
    paths=()
    while IFS= read -r line; do
        line=${line#"${line%%[![:space:]]*}"}; line=${line%"${line##*[![:space:]]}"}
        [ -z "$line" ] && continue
        # one path per line; a line with glob characters expands (a glob matching nothing is an error)
        if [[ "$line" == *[*?[]* ]]; then readarray -t matches < <(compgen -G "$line" | sort)
        else matches=("$line"); fi
        [ ${#matches[@]} = 0 ] && { echo "::error title=packcheck::no checkpoint matches '$line'"; echo "exit-code=2" >>"$GITHUB_OUTPUT"; exit 0; }
        paths+=("${matches[@]}")
    done <<<"${PC_PATHS:-}"
    [ ${#paths[@]} = 0 ] && { echo "::error title=packcheck::mode validate needs paths"; echo "exit-code=2" >>"$GITHUB_OUTPUT"; exit 0; }
    # GITHUB_ACTIONS=true: packcheck itself prints one ::error / ::warning per failed or warned rule.
    GITHUB_ACTIONS=true "$PACKCHECK" validate "${paths[@]}" "${profile[@]}" --report "sarif:$sarif" "${extra[@]}"
    rc=$?
    ;;
certify)
    [ -z "${PC_READER:-}" ] && { echo "::error title=packcheck::mode certify needs reader"; echo "exit-code=2" >>"$GITHUB_OUTPUT"; exit 0; }
    ef=()
    [ -n "${PC_EXPECT_FAIL:-}" ] && ef=(--expect-fail "$PC_EXPECT_FAIL")
    json=${sarif%.sarif}-certify.json
    "$PACKCHECK" certify --reader "$PC_READER" "${ef[@]}" "${profile[@]}" --report "json:$json" \
        --report "junit:${sarif%.sarif}-certify.xml" --report "html:${sarif%.sarif}-certify.html" "${extra[@]}"
    rc=$?
    # certify writes no SARIF of its own: one result per failing case, from its JSON report.
    [ -f "$json" ] && PC_SARIF_LOCATION=${PC_EXPECT_FAIL:-} "$here/certify-sarif.sh" "$json" "$sarif"
    ;;
*)
    echo "::error title=packcheck::mode must be validate or certify, not '${PC_MODE}'"
    echo "exit-code=2" >>"$GITHUB_OUTPUT"
    exit 0
    ;;
esac
echo "exit-code=$rc" >>"$GITHUB_OUTPUT"
[ -f "$sarif" ] && echo "sarif=$sarif" >>"$GITHUB_OUTPUT"
exit 0
