# Applies one variant's patch to its base in the build tree (cmake/Variants.cmake):
#   cmake -DPATCH_PROGRAM=<patch> -DPATCH=<.patch> -DBASE=<.cu> -DOUTPUT=<.cu> -DSOURCE_DIR=<dir>
#         -P ApplyVariant.cmake
# No fuzz: a hunk whose context lines changed in the base must be remade, not guessed. The text
# before the patch's first '--- ' line (the variant's header) is ignored by patch.
foreach(var PATCH_PROGRAM PATCH BASE OUTPUT SOURCE_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "ApplyVariant.cmake: -D${var}=... is required")
  endif()
endforeach()
file(RELATIVE_PATH patch_shown "${SOURCE_DIR}" "${PATCH}")
file(RELATIVE_PATH base_shown "${SOURCE_DIR}" "${BASE}")
get_filename_component(output_dir "${OUTPUT}" DIRECTORY)
file(MAKE_DIRECTORY "${output_dir}")
execute_process(
  COMMAND "${PATCH_PROGRAM}" --force --fuzz=0 --no-backup-if-mismatch
          --reject-file=- "--output=${OUTPUT}.tmp" "--input=${PATCH}" "${BASE}"
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(status EQUAL 0)
  file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
  return()
endif()
file(REMOVE "${OUTPUT}.tmp")
# patch says "Hunk #2 FAILED at 40." for each hunk whose context is not in the base.
string(REGEX MATCHALL "Hunk #[0-9]+ FAILED at [0-9]+" failed "${out}${err}")
if(failed)
  file(STRINGS "${PATCH}" hunk_lines REGEX "^@@ ")
  set(reasons "")
  foreach(f IN LISTS failed)
    string(REGEX REPLACE "Hunk #([0-9]+) FAILED at ([0-9]+)" "\\1;\\2" f "${f}")
    list(GET f 0 number)
    list(GET f 1 at)
    math(EXPR index "${number} - 1")
    list(GET hunk_lines ${index} header)
    list(APPEND reasons "hunk #${number} (${header}, near line ${at})")
  endforeach()
  list(JOIN reasons ", " reasons)
  set(problem "${reasons} does not apply to ${base_shown}: the base changed; remake the variant (docs/adding-a-lab.md, \"Variants\")")
else()
  string(STRIP "${out}${err}" says)
  string(REPLACE "\n" " " says "${says}")
  set(problem "cannot be applied to ${base_shown}: ${says}")
endif()
# One unwrapped line (FATAL_ERROR would wrap it), then the failure.
message(NOTICE "error: ${patch_shown}: ${problem}")
message(FATAL_ERROR "variant not made: ${patch_shown}")
