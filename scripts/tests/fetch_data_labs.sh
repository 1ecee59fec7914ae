#!/usr/bin/env bash
# fetch_data_labs.sh FETCH_DATA: `scripts/fetch-data --labs` (what ./cudalab grade --lab uses) takes
# only the files of the labs named. Offline, into an empty folder, so that each file it tries is
# one it cannot get and says so: lab 01 reads none (no line, exit 0), lab 04 the photos only, 07
# and 10 their matrices and Fashion-MNIST only; a bad lab list is one line and exit code 2.
set -u
fetch=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed=0
expect() {  # expect LABS EXIT_CODE REGEX_EVERY_LINE_MATCHES [LINES]
  local out code lines
  out=$(CUDALAB_OFFLINE=1 CUDALAB_DATA_DIR="$dir" "$fetch" --labs "$1" 2>&1)
  code=$?
  lines=$(printf '%s' "$out" | grep -c '')
  if [[ $code -ne $2 ]] || { [[ -n $out ]] && printf '%s\n' "$out" | grep -qvE "$3"; } ||
    [[ -n ${4:-} && $lines -ne $4 ]]; then
    echo "FAIL: --labs $1 gave exit code $code (want $2) and $lines line(s):"
    printf '%s\n' "$out"
    failed=1
  else
    echo "ok:   --labs $1 -> exit $code, $lines line(s)"
  fi
}
# On a machine that has the packages the files are copied (exit 0, a line each); without them,
# offline, each is refused in a line (exit 1): either way, only the named labs' files.
expect 01 0 '^$' 0
expect 01,02,03,05,06,09 0 '^$' 0
code=0; [[ -s /usr/lib/python3/dist-packages/skimage/data/camera.png ]] || code=1
expect 04 $code '^fetch-data: (could not get )?images/' 7
rm -rf "${dir:?}"/*
code=0; [[ -s /usr/lib/R/library/Matrix/external/pores_1.mtx && -s /usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz ]] || code=1
expect 07,10 $code '^fetch-data: (could not get )?(matrices|fashion-mnist)/' 8
expect 4x 2 '^fetch-data: --labs takes lab numbers' 1
expect '01,,x' 2 '^fetch-data: --labs takes lab numbers' 1
exit $failed
