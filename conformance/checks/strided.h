// Row types and checks of the strided suite (spec/strided.toml): layouts, the storage
// model, memory-format strides, is_contiguous, views and memory-format copies.
//
// Rows are plain aggregates (fixed-size arrays, no heap) so the generated tables compile
// quickly. Every tensor a row builds starts from make_tensor(int64 values 0..n-1), so a
// storage element's value is its index and the address formula can be checked exactly.
#ifndef TCTS_CONFORMANCE_CHECKS_STRIDED_H_
#define TCTS_CONFORMANCE_CHECKS_STRIDED_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "conformance/candidate/candidate.h"
#include "conformance/checks/common.h"
#include "conformance/harness/harness.h"
#include "spec/view_ops.inc"

namespace tcts {

// The view and copy operations (spec/strided.toml [[view]], generated: spec/view_ops.inc).
enum class ViewKind {
#define TCTS_VIEW_KIND_ENUMERATOR(e, ...) e,
  TCTS_FORALL_VIEW_OPS(TCTS_VIEW_KIND_ENUMERATOR)
#undef TCTS_VIEW_KIND_ENUMERATOR
};
const char* ViewKindName(ViewKind kind);
// The view op named `name` ("narrow"), or nullopt.
std::optional<ViewKind> ViewKindFromName(const std::string& name);

// One step of a chain: the op, its integer arguments and (copies) its memory format.
//   transpose [d0, d1]  permute dims  narrow [dim, start, length]  select [dim, index]
//   slice [dim, start, end, step]  expand sizes  unsqueeze [dim]  squeeze [] or [dim]
//   view/reshape sizes  as_strided [sizes..., strides..., offset]
struct ViewStep {
  ViewKind kind;
  Dims args;
  MemoryFormat format;
};
std::string ToString(const ViewStep& step);
// Runs one step on `cand`, through its op's call helper.
Called<TensorHandle> Apply(Candidate& cand, const ViewStep& step, const TensorHandle& t);

struct LayoutRow {
  RowMeta meta;
  Layout layout;
  bool required;  // false: the candidate may declare Feature::kSparseLayout unsupported
};

// A literal example of the storage model (004): a tensor of `values`, its strides and
// offset, and optionally a write through its storage and the values after it.
struct AddressRow {
  RowMeta meta;
  Dims sizes, values, strides;
  std::int64_t offset;
  bool write;
  std::int64_t write_index, write_value;
  Dims after;
};

// empty(sizes, memory_format=format): its strides, or the error.
struct EmptyRow {
  RowMeta meta;
  Dims sizes;
  MemoryFormat format;
  ExpectedError error;
  Dims strides;
};

// is_contiguous(fmt) of empty_strided(sizes, strides), for the three allocating formats
// (and preserve_format, which reads as contiguous_format).
struct ContiguityRow {
  RowMeta meta;
  Dims sizes, strides;
  struct Answer {
    MemoryFormat format;
    bool contiguous;
  } answers[std::size(std::initializer_list<int>{
#define TCTS_ONE_PER_FORMAT(...) 0,
      TCTS_FORALL_MEMORY_FORMATS(TCTS_ONE_PER_FORMAT)
#undef TCTS_ONE_PER_FORMAT
  })];  // is_contiguous(format) for every memory format, in spec order
};

// A chain of steps applied to make_tensor(base, int64, 0..n-1); the last step is under test.
struct ViewRow {
  RowMeta meta;
  Dims base;
  int nsteps;
  ViewStep steps[3];
  ExpectedError error;
  Dims sizes, strides;
  std::int64_t offset;
  bool copies;        // the result has a new storage (else: the last step's input's storage)
  bool check_values;  // copies: values equal the input's (false for empty_like)
};

inline void PrintTo(const LayoutRow& r, std::ostream* os) { *os << r.meta.id; }
inline void PrintTo(const AddressRow& r, std::ostream* os) { *os << r.meta.id; }
inline void PrintTo(const EmptyRow& r, std::ostream* os) { *os << r.meta.id; }
inline void PrintTo(const ContiguityRow& r, std::ostream* os) { *os << r.meta.id; }
inline void PrintTo(const ViewRow& r, std::ostream* os) { *os << r.meta.id; }

void CheckLayout(Case& c, const LayoutRow& row);
void CheckAddress(Case& c, const AddressRow& row);
void CheckEmpty(Case& c, const EmptyRow& row);
void CheckContiguity(Case& c, const ContiguityRow& row);
void CheckView(Case& c, const ViewRow& row);

// ---------------------------------------------------------------- shared with properties
// The storage index of element `index` (row-major position) of a geometry: seed 004's formula.
std::int64_t Address(const TensorMeta& m, const std::vector<std::int64_t>& index);
// Every index of `sizes` in row-major order.
std::vector<std::vector<std::int64_t>> Indices(const std::vector<std::int64_t>& sizes);
// The dtypes fixtures may take where a clause does not depend on the dtype (views, memory
// formats, storage, the address formula), in order of preference: int64 (what these rows always
// used), float32 (a dtype every tensor library has), int32, float64, int16.
const std::vector<DType>& FixtureDTypes();
// The first of FixtureDTypes the candidate declares (int64 when it declares none).
DType FixtureDType(const Candidate& cand);
// The small integer v as a fixture of `dtype` holds it and values() reads it back (an int for
// integral dtypes, a float for floating, a complex for complex ones).
Scalar FixtureValue(DType dtype, std::int64_t v);
// The int64 values 0..n-1: what every strided case's base tensor holds (made in its fixture
// dtype, which holds them: values() reads them back as FixtureValue).
std::vector<Scalar> IotaValues(std::int64_t n);
// A contiguous int64 tensor holding 0..numel-1. Records a mismatch and returns nullopt on failure.
std::optional<TensorHandle> MakeIota(Case& c, const std::vector<std::int64_t>& sizes);
// Checks seed 004's address formula: values(t)[i] == storage_values(t)[offset + sum stride*index].
void CheckAddressFormula(Case& c, const TensorHandle& t, const std::string& what);

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_CHECKS_STRIDED_H_
