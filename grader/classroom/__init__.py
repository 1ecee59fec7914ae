"""The class grading service: students without a GPU submit their lab files over HTTP and get
the instructor's verdict, graded by the same code as ./cudalab batch (docs/instructors.md).

store.py (SQLite: students, tokens, the queue), service.py (the HTTP API and pages), worker.py
(claims and grades the queued submissions), roster.py (the class list and its tokens),
deadlines.py (per-lab deadlines: which submission counts), export.py (the counting submissions
as a batch's folder, with its CSV, Gradescope and JUnit files), leaderboard.py (the opt-in
leaderboards), client.py (the students' ./cudalab login, submit, submissions, leaderboard)."""
