// Lab 07's functions across the two processes (grader/framework/remote.h; lab 01's remote.cpp
// says how the file is used), panels.h's too.
//
// A view (CsrView, EllView, CooView, HybView, PanelView: sizes and device arrays) travels field by
// field, the sizes as integers and the arrays as device pointers, and is rebuilt in the
// candidate's process. What the function wrote through its const view (a const_cast) comes back
// as the call's result, field by field, and the stub writes the same into the view it was handed,
// as the function would have in the grader's process: a size as the function left it, an array
// pointer moved by as many bytes as it moved its own. The grader's check that the view came back
// unchanged (spmv_check.cpp, call_with_copy) then sees it.
//
// panel_shape and spmv_panels are the reference's (panels.h): the solution defines them; a
// student's file or a variant need not, and a candidate library must still load without them.
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>

#include "panels.h"
#include "remote_lab.h"
#include "spmv.h"

namespace {
enum Function : std::uint32_t {
  kCsrScalar = 1,
  kCsrVector = 2,
  kEll = 3,
  kCoo = 4,
  kHyb = 5,
  kPanelShape = 6,
  kPanels = 7
};

using lab07::CooView;
using lab07::CsrView;
using lab07::EllView;
using lab07::HybView;
using lab07::PanelView;

// A view's fields, in the order they travel.
auto fields(CsrView& v) {
  return std::tie(v.rows, v.cols, v.nnz, v.row_ptr, v.col_idx, v.val);
}
auto fields(EllView& v) {
  return std::tie(v.rows, v.cols, v.width, v.col_idx, v.val);
}
auto fields(CooView& v) {
  return std::tie(v.rows, v.cols, v.nnz, v.row, v.col, v.val);
}
auto fields(HybView& v) {
  return std::tuple_cat(fields(v.ell), fields(v.coo));
}
auto fields(PanelView& v) {
  return std::tie(v.rows, v.cols, v.panels, v.parts, v.max_accumulators, v.panel_row, v.split_ptr,
                  v.split_row, v.run_ptr, v.packed, v.group_col, v.val);
}
template <typename View>
constexpr std::uint32_t kFields =
    static_cast<std::uint32_t>(std::tuple_size_v<decltype(fields(std::declval<View&>()))>);

// What a function wrote through its const view, per field in the order they travel: a size's
// new value less the old, an array pointer's displacement in bytes; all 0 when it wrote nothing.
struct ViewChange {
  std::int64_t delta[12];
};
static_assert(kFields<PanelView> <= sizeof(ViewChange::delta) / sizeof(std::int64_t));
}  // namespace

#if defined(CUDALAB_SERVE)

// Weak, so that a candidate library whose file does not define them still loads (cudalab-serve
// loads it with every symbol resolved): their addresses are then null, and a call of them is
// refused.
namespace lab07::candidate {
__attribute__((weak)) PanelShape panel_shape();
__attribute__((weak)) void spmv_panels(const PanelView& a, const float* x, float* y,
                                       cudaStream_t stream);
}  // namespace lab07::candidate

namespace {

using cudalab::serve::Args;

// What the function wrote through its view: `after` compared with `before`, field by field.
std::int64_t displacement(int before, int after) {
  return std::int64_t{after} - before;
}
template <typename T>
std::int64_t displacement(T* before, T* after) {
  return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(after) -
                                   reinterpret_cast<std::uintptr_t>(before));
}

template <typename Fields, std::size_t... I>
ViewChange change_of(const Fields& before, const Fields& after, std::index_sequence<I...>) {
  ViewChange change{};
  ((change.delta[I] = displacement(std::get<I>(before), std::get<I>(after))), ...);
  return change;
}
template <typename View>
ViewChange change_of(View before, View after) {
  return change_of(fields(before), fields(after), std::make_index_sequence<kFields<View>>{});
}

void take(const Args& a, std::uint32_t i, int& field) {
  field = a.i32(i);
}
template <typename T>
void take(const Args& a, std::uint32_t i, T*& field) {
  field = a.device<T>(i);
}

// The view whose fields are arguments first, first + 1, ...
template <typename View>
View view_at(const Args& a, std::uint32_t first) {
  View v;
  std::apply(
      [&](auto&... field) {
        std::uint32_t i = first;
        (take(a, i++, field), ...);
      },
      fields(v));
  return v;
}

// f(view, x, y, stream) with the view rebuilt from the first arguments, x and y after them; the
// result is what f wrote through its view.
template <typename View>
void call_with_view(cudalab_call* call, const Args& a,
                    void (*f)(const View&, const float*, float*, cudaStream_t)) {
  const View handed = view_at<View>(a, 0);
  View view = handed;
  f(view, a.device<const float>(kFields<View>), a.device<float>(kFields<View> + 1), a.stream());
  cudalab::serve::set_result(call, change_of(handed, view));
}

}  // namespace

extern "C" int cudalab_serve_dispatch(cudalab_call* call) {
  return cudalab::serve::dispatch(call, [&](const Args& a) {
    switch (call->function) {
      case kCsrScalar: call_with_view(call, a, &lab07::candidate::spmv_csr_scalar); return true;
      case kCsrVector: call_with_view(call, a, &lab07::candidate::spmv_csr_vector); return true;
      case kEll: call_with_view(call, a, &lab07::candidate::spmv_ell); return true;
      case kCoo: call_with_view(call, a, &lab07::candidate::spmv_coo); return true;
      case kHyb: call_with_view(call, a, &lab07::candidate::spmv_hyb); return true;
      case kPanelShape:
        if (lab07::candidate::panel_shape == nullptr)
          throw cudalab::serve::BadArgument("panel_shape is not defined in this candidate");
        cudalab::serve::set_result(call, lab07::candidate::panel_shape());
        return true;
      case kPanels:
        if (lab07::candidate::spmv_panels == nullptr)
          throw cudalab::serve::BadArgument("spmv_panels is not defined in this candidate");
        call_with_view(call, a, &lab07::candidate::spmv_panels);
        return true;
    }
    return false;
  });
}

#else

namespace {

using namespace cudalab::remote;

Value value(int v) {
  return integer(v);
}
template <typename T>
Value value(T* p) {
  return device(p);
}

void displace(int& field, std::int64_t delta) {
  field = static_cast<int>(field + delta);
}
template <typename T>
void displace(T*& field, std::int64_t delta) {
  field = reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(field) +
                               static_cast<std::uintptr_t>(delta));
}

template <typename Fields, std::size_t... I>
void apply_change(const Fields& view, const ViewChange& change, std::index_sequence<I...>) {
  (displace(std::get<I>(view), change.delta[I]), ...);
}
// Writes `change` into `view`, as the function wrote it through its copy. Nothing is written when
// it wrote nothing.
template <typename View>
void apply_change(const View& view, const ViewChange& change) {
  bool written = false;
  for (std::uint32_t i = 0; i < kFields<View>; ++i) written = written || change.delta[i] != 0;
  if (!written) return;
  View& handed = const_cast<View&>(view);  // the caller's object, written as the function wrote
  apply_change(fields(handed), change, std::make_index_sequence<kFields<View>>{});
}

// A call of `name` with the view's fields, then x and y; what the function wrote through its view
// is written into `view`.
template <typename View>
void call_with_view(const char* name, Function id, const View& view, const float* x, float* y) {
  View v = view;
  const ViewChange change = std::apply(
      [&](auto&... field) {
        return call_returning<ViewChange>(kHere, name, id, {value(field)..., device(x), device(y)});
      },
      fields(v));
  apply_change(view, change);
}

}  // namespace

namespace lab07::CUDALAB_IMPL {

void spmv_csr_scalar(const CsrView& a, const float* x, float* y, cudaStream_t) {
  call_with_view("spmv_csr_scalar", kCsrScalar, a, x, y);
}

void spmv_csr_vector(const CsrView& a, const float* x, float* y, cudaStream_t) {
  call_with_view("spmv_csr_vector", kCsrVector, a, x, y);
}

void spmv_ell(const EllView& a, const float* x, float* y, cudaStream_t) {
  call_with_view("spmv_ell", kEll, a, x, y);
}

void spmv_coo(const CooView& a, const float* x, float* y, cudaStream_t) {
  call_with_view("spmv_coo", kCoo, a, x, y);
}

void spmv_hyb(const HybView& a, const float* x, float* y, cudaStream_t) {
  call_with_view("spmv_hyb", kHyb, a, x, y);
}

PanelShape panel_shape() {
  return cudalab::remote::call_returning<PanelShape>(kHere, "panel_shape", kPanelShape, {});
}

void spmv_panels(const PanelView& a, const float* x, float* y, cudaStream_t) {
  call_with_view("spmv_panels", kPanels, a, x, y);
}

}  // namespace lab07::CUDALAB_IMPL

#endif
