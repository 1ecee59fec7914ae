#!/usr/bin/env bash
# expect_usage_errors.sh PROGRAM CASES_FILE
# Runs PROGRAM once per line of CASES_FILE (arguments split on spaces; '#' lines are comments) and
# requires each run to fail with exit code 2 and exactly one line on stderr.
set -u
program=$1
cases=$2
failed=0
while IFS= read -r line || [[ -n "$line" ]]; do
  [[ -z "$line" || "$line" == \#* ]] && continue
  read -r -a args <<<"$line"
  stderr=$("$program" "${args[@]}" 2>&1 >/dev/null)
  code=$?
  lines=$(printf '%s' "$stderr" | grep -c '')
  if [[ $code -ne 2 || $lines -ne 1 ]]; then
    echo "FAIL: '$line' gave exit code $code and $lines stderr line(s):"
    printf '%s\n' "$stderr"
    failed=1
  else
    echo "ok:   '$line' -> $stderr"
  fi
done <"$cases"
exit $failed
