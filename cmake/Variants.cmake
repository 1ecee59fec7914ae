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

# The base of a variant made against the skeleton ("Base: skeleton"): the skeleton as committed
# (git HEAD), copied into the build tree, never the working file, which the student edits. Outside
# a git checkout, or for a skeleton not committed yet, the working file.
#   cudalab_skeleton_base(<variable> <skeleton .cu> <copy .cu>)
# sets <variable> to the file to patch (<copy>, written at configure time when its text changed),
# <variable>_SHOWN to how messages name it and <variable>_WHY to what a patch that does not apply
# to it means.
function(cudalab_skeleton_base variable skeleton copy)
  file(RELATIVE_PATH shown "${CMAKE_SOURCE_DIR}" "${skeleton}")
  find_package(Git QUIET)
  set(status 1)
  if(GIT_EXECUTABLE)
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${CMAKE_SOURCE_DIR}" show "HEAD:./${shown}"
                    RESULT_VARIABLE status OUTPUT_VARIABLE text ERROR_QUIET)
  endif()
  if(NOT status EQUAL 0)
    set(${variable} "${skeleton}" PARENT_SCOPE)
    set(${variable}_SHOWN "${shown}" PARENT_SCOPE)
    set(${variable}_WHY "Not a git checkout: the patch was tried on the file as it is now (your "
                        "own work on it?)" PARENT_SCOPE)
    return()
  endif()
  set(old "")
  if(EXISTS "${copy}")
    file(READ "${copy}" old)
  endif()
  if(NOT old STREQUAL text)
    file(WRITE "${copy}" "${text}")
  endif()
  set(${variable} "${copy}" PARENT_SCOPE)
  set(${variable}_SHOWN "${shown} as committed (git HEAD)" PARENT_SCOPE)
  set(${variable}_WHY "The committed skeleton changed after the variant was made (your own work "
                      "committed on it?)" PARENT_SCOPE)
endfunction()

# Whether <patch> applies to <base> (patch --dry-run, no fuzz, as ApplyVariant.cmake applies it):
# sets <variable> to "" when it does, else to patch's own words.
function(cudalab_variant_problem variable patch base)
  execute_process(
    COMMAND "${CUDALAB_PATCH}" --dry-run --force --fuzz=0 --no-backup-if-mismatch
            --reject-file=- "--input=${patch}" "${base}"
    RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(problem "")
  if(NOT status EQUAL 0)
    string(REGEX MATCHALL "Hunk #[0-9]+ FAILED at [0-9]+" failed "${out}${err}")
    string(REPLACE ";" ", " problem "${failed}")
    string(REGEX REPLACE "Hunk #([0-9]+) FAILED at ([0-9]+)" "hunk #\\1 fails at line \\2"
           problem "${problem}")
    if(NOT problem)
      string(STRIP "${out}${err}" problem)
      string(REPLACE "\n" " " problem "${problem}")
    endif()
  endif()
  set(${variable} "${problem}" PARENT_SCOPE)
endfunction()
