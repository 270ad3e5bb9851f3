#!/bin/sh
# certify's JSON report -> SARIF 2.1.0 (one result per case that failed unexpectedly or is a stale
# expected failure) and one workflow annotation per such case. usage: certify-sarif.sh REPORT.json OUT.sarif
# The results point at PC_SARIF_LOCATION (the expected-failures file or the reader, relative to the
# workspace) when given: code scanning shows a result on a file of the repository.
set -eu
json=$1 sarif=$2
loc=${PC_SARIF_LOCATION:-}
jq -r '.cases[] | select(.status != "ok" and .status != "expected-fail" and .status != "skip")
       | "::error title=packcheck certify: \(.outcome)::\(.case): \(.detail // "" | gsub("%"; "%25") | gsub("\n"; " "))"' "$json"
jq --arg loc "$loc" '
  def location: if $loc == "" then [] else [{physicalLocation: {artifactLocation: {uri: $loc}}}] end;
  [.cases[] | select(.status != "ok" and .status != "expected-fail" and .status != "skip")] as $bad
  | {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", version: "2.1.0",
     runs: [{tool: {driver: {name: "packcheck certify", version: .packcheck_version,
                             rules: ([$bad[] | .outcome] | unique | map({id: "certify/\(.)", name: .,
                                      shortDescription: {text: "reader outcome \(.)"}}))}},
             properties: {corpus_manifest_sha256: .manifest_sha256, corpus_version: .corpus_version,
                          reader: .reader.command, verdict: .verdict},
             results: [$bad[] | {ruleId: "certify/\(.outcome)", level: "error",
                                 message: {text: "\(.case): \(.outcome): \(.detail // "")"},
                                 partialFingerprints: {packcheckCase: "\(.case)/\(.outcome)"},
                                 locations: location}]}]}' "$json" >"$sarif.tmp"
mv "$sarif.tmp" "$sarif"
