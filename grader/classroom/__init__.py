"""The class tools: ./cudalab batch (a class graded on the instructor's GPUs or a Slurm cluster),
its reports, and the grading service students submit to (docs/instructors.md).

The modules import one way, from the bottom up:

    base.py         the repository's root, the limits on a submission, UsageError, the output lines
    submissions.py  the labs' student files; a submission's files read in memory (no extraction)
    workers.py      a worker's folder, its copy of the repository and build; GPUs; the sandbox
    grading.py      the batch's OUT and seed; which submissions to grade; one graded in a worker
    slurm.py        --slurm: the job arrays, a task's grade, the collector
    batch.py        ./cudalab batch
    reports.py      ./cudalab batch-report: per student (JSON, Gradescope, JUnit, the report.md
                    page) and per class (CSV, the page, plots); pages from templates/reports/

and the service, on top of them: store.py (SQLite: students, tokens, the queue), service.py (the
HTTP API and pages, templates/), worker.py (claims and grades the queued submissions), roster.py
(the class list and its tokens), deadlines.py (per-lab deadlines: which submission counts),
export.py (the counting submissions as a batch's folder, with its CSV, Gradescope and JUnit
files), leaderboard.py (the opt-in leaderboards), client.py (the students' ./cudalab login,
submit, submissions, leaderboard: the standard library and base.py, submissions.py only)."""
