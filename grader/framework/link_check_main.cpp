// main() of labNN-student-link-check: never run. Linking the student's object file alone, with
// only the support library and the CUDA runtime, proves it calls neither the reference solution
// nor a vendor library (docs/design.md, section 3): such a call is an undefined symbol here.
int main() {
  return 0;
}
