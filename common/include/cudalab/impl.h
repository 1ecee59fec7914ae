// Several implementations of one lab interface live in one executable (candidate, reference,
// baselines). Each lab header declares its functions inside `namespace labNN::CUDALAB_IMPL`, and
// the build compiles each implementation file once per role with -DCUDALAB_IMPL=<role>, so the
// grader can call labNN::candidate::f(...) and labNN::reference::f(...) side by side.
// A student's file needs nothing of this beyond the namespace line already written in it.
//
// Lab headers therefore have no include guard: a grader includes them once per role, and they
// hold declarations only (which may be repeated).
#ifndef CUDALAB_IMPL
#define CUDALAB_IMPL candidate
#endif
