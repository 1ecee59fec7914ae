# Variants of a lab's answer (docs/adding-a-lab.md, "Variants"): each is a unified diff against the
# lab's plain correct answer or its skeleton, applied in the build tree by the distribution's
# `patch`; the source tree is never modified.
#
#   cudalab_variant_source(<output .cu> <variant .patch> <base .cu>)
#
# makes <output> at build time. A patch that no longer applies (its base changed) fails the build
# with one message naming the patch, the hunk and the base (cmake/ApplyVariant.cmake).
find_program(CUDALAB_PATCH patch)
if(NOT CUDALAB_PATCH)
  message(FATAL_ERROR "patch not found: the build makes the grader's variants with it. "
                      "Install it with: scripts/setup (Debian/Ubuntu: apt-get install patch)")
endif()
set(CUDALAB_APPLY_VARIANT "${CMAKE_CURRENT_LIST_DIR}/ApplyVariant.cmake")

function(cudalab_variant_source output patch base)
  file(RELATIVE_PATH shown "${CMAKE_SOURCE_DIR}" "${patch}")
  add_custom_command(OUTPUT "${output}"
    COMMAND "${CMAKE_COMMAND}" "-DPATCH_PROGRAM=${CUDALAB_PATCH}" "-DPATCH=${patch}"
            "-DBASE=${base}" "-DOUTPUT=${output}" "-DSOURCE_DIR=${CMAKE_SOURCE_DIR}"
            -P "${CUDALAB_APPLY_VARIANT}"
    DEPENDS "${patch}" "${base}" "${CUDALAB_APPLY_VARIANT}"
    COMMENT "Applying ${shown}"
    VERBATIM)
endfunction()
