# The build's output as ./cudalab shows it (cudalab, build()): reads what cmake --build (Ninja,
# with NINJA_STATUS="[%f/%t %e] ") prints and writes
#   - one line per lab as the build reaches it: the steps done of all and about how long is left
#     (on a terminal, tty=1: one line that updates in place), and every 30 s in between;
#   - each failed step once: "error: FILE does not compile:" and the compiler's messages, without
#     the compiler's command line; the same messages again (the file compiled to PTX for the
#     technique checks, or once per architecture) are not repeated;
#   - anything else the build says (warnings) as it is.
# Paths under the repository (root, ending in "/") are shown relative to it. With brief=1 (before
# grading), a student's lab file that does not compile gets one line: the grade shows its errors.
#   awk -v tty=1|"" -v root=/path/to/repo/ [-v brief=1] -f build-progress.awk
function relative(text,    at) {
  while (root != "" && (at = index(text, root)) > 0)
    text = substr(text, 1, at - 1) substr(text, at + length(root))
  return text
}
function clear_status() {
  if (tty && shown_status) {
    printf "\r\033[K"
    shown_status = 0
  }
}
function say(text) {
  clear_status()
  print text
  fflush()
}
function left(done, total, elapsed,    s) {
  if (done < 3 || elapsed <= 0) return ""
  s = elapsed * (total - done) / done
  if (s < 60) return ", under a minute left"
  return sprintf(", about %d min left", int(s / 60 + 0.5))
}
# The end of a failed step's messages: shown unless the same were shown already.
function end_failure() {
  if (!in_failure) return
  in_failure = 0
  if (failure_text in seen) return
  seen[failure_text] = 1
  if (brief && failure_head ~ /^error: labs\/[0-9][0-9]-[^ ]* does not compile:$/) {
    sub(/:$/, " (its errors: in the grade below)", failure_head)
    say(failure_head)
    return
  }
  say(failure_head)
  printf "%s", failure_text
  fflush()
}
BEGIN { done = 0; total = 0; elapsed = 0; last_said = -1000 }
# Ninja's status line: [finished/total elapsed] description
/^\[[0-9]+\/[0-9]+ [0-9.]+\] / {
  end_failure()
  close_at = index($0, "] ")
  split(substr($0, 2, close_at - 2), numbers, "[/ ]")
  done = numbers[1] + 0
  total = numbers[2] + 0
  elapsed = numbers[3] + 0
  what = substr($0, close_at + 2)
  part = "the framework"
  if (match(what, /lab[0-9][0-9]/))
    part = "lab " substr(what, RSTART + 3, 2)
  else if (match(what, /labs\/[0-9][0-9]-/))
    part = "lab " substr(what, RSTART + 5, 2)
  if (done == 0) next  # CMake's re-check of its globs, before any step
  status = sprintf("    %s: step %d of %d%s", part, done, total, left(done, total, elapsed))
  if (tty) {
    printf "\r\033[K%s", status
    fflush()
    shown_status = 1
  } else if (!(part in reached) || elapsed - last_said >= 30) {
    print status
    fflush()
    last_said = elapsed
  }
  reached[part] = 1
  next
}
/^FAILED: / {
  end_failure()
  in_failure = 1
  failure_text = ""
  failure_head = "error: " relative(substr($0, 9)) " failed:"
  getline command  # the compiler's or linker's command line: not shown
  if (match(command, / -(c|ptx) [^ ]+/)) {
    source = substr(command, RSTART, RLENGTH)
    sub(/^ -(c|ptx) /, "", source)
    failure_head = "error: " relative(source) " does not compile:"
  } else if (match(command, / -o [^ ]+/) && command !~ /-P [^ ]*ApplyVariant\.cmake/) {
    target = substr(command, RSTART + 4, RLENGTH - 4)
    failure_head = "error: " relative(target) " does not link:"
  }
  next
}
/^ninja: build stopped/ { end_failure(); next }
/^ninja: no work to do/ { next }
{
  if (in_failure)
    failure_text = failure_text "  " relative($0) "\n"
  else
    say(relative($0))
}
END {
  end_failure()
  clear_status()
  if (done > 0) {
    printf "    %d of %d steps done in %d s\n", done, total, elapsed + 0.5
    fflush()
  }
}
