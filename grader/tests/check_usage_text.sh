#!/usr/bin/env bash
# check_usage_text.sh GRADE_COMMAND USAGE_FILE
# `./cudalab grade --help` prints USAGE_FILE (grader/grade/usage.txt) and checks option names
# against it before anything is built: it must say what `GRADE_COMMAND --help` says (spaces and
# line breaks aside: cxxopts versions wrap the text differently). After changing the grade
# command's options: build/<preset>/grader/cudalab-grade --help > grader/grade/usage.txt
set -u
want=$("$1" --help | tr -s ' \n' ' ')
have=$(tr -s ' \n' ' ' <"$2")
if [[ "$want" != "$have" ]]; then
  echo "FAIL: $2 is not what $1 --help says; remake it: $1 --help > $2"
  diff <(printf '%s\n' "$have" | tr ' ' '\n') <(printf '%s\n' "$want" | tr ' ' '\n')
  exit 1
fi
echo "ok: $2 is what $1 --help says"
