#!/usr/bin/env bash
# capture-compile.sh FILE COMPILER ARGS...: the compiler launcher of a lab's student object
# (cudalab_add_lab, CUDA_COMPILER_LAUNCHER). Runs the compiler; what it says goes to stderr as
# usual and into FILE, which the grade command shows the student first when the file does not
# compile (grader/grade/report.h, not_compiled_message). Exit status: the compiler's.
out=$1
shift
"$@" 2>"$out.partial"
status=$?
cat "$out.partial" >&2
mv -f "$out.partial" "$out"
exit $status
