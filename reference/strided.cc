#include "reference/strided.h"

#include <algorithm>
#include <numeric>

#include "reference/checked.h"
#include "reference/device_backend.h"

namespace tcts::ref {

const char* MemoryFormatName(MemoryFormat format) {
  switch (format) {
    case MemoryFormat::kContiguous: return "Contiguous";
    case MemoryFormat::kChannelsLast: return "ChannelsLast";
    case MemoryFormat::kChannelsLast3d: return "ChannelsLast3d";
    case MemoryFormat::kPreserve: return "Preserve";
  }
  return "?";
}

namespace {

std::string Str(std::int64_t v) { return std::to_string(v); }

// The dimensions of a channels-last format, innermost first; empty for other formats.
std::vector<std::size_t> ChannelsLastOrder(MemoryFormat format) {
  if (format == MemoryFormat::kChannelsLast) return {1, 3, 2, 0};
  if (format == MemoryFormat::kChannelsLast3d) return {1, 4, 3, 2, 0};
  return {};
}

}  // namespace

std::vector<std::int64_t> FormatStrides(const std::vector<std::int64_t>& sizes, MemoryFormat format) {
  switch (format) {
    case MemoryFormat::kContiguous: return ContiguousStrides(sizes);
    case MemoryFormat::kChannelsLast:
    case MemoryFormat::kChannelsLast3d: {
      const std::vector<std::size_t> order = ChannelsLastOrder(format);
      if (sizes.size() != order.size()) {
        throw RuntimeError(format == MemoryFormat::kChannelsLast
                               ? "required rank 4 tensor to use channels_last format"
                               : "required rank 5 tensor to use channels_last_3d format");
      }
      // Raw sizes, as c10's get_channels_last_strides_*d: a size-0 dimension zeroes the
      // strides outside it.
      return DenseStrides(sizes, order, false);
    }
    case MemoryFormat::kPreserve: break;
  }
  throw RuntimeError(std::string("unsupported memory format ") + MemoryFormatName(format));
}

Tensor Empty(const std::vector<std::int64_t>& sizes, ScalarType dtype, MemoryFormat format, const Device& device) {
  return Tensor::EmptyStrided(sizes, FormatStrides(sizes, format), dtype, Storage::Init::kZero, device);
}

bool IsContiguous(const Tensor& t, MemoryFormat format) { return IsContiguous(t.sizes(), t.strides(), format); }

bool IsContiguous(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                  MemoryFormat format) {
  std::vector<std::size_t> order = ChannelsLastOrder(format);
  if (format == MemoryFormat::kContiguous || format == MemoryFormat::kPreserve) {  // Preserve reads as Contiguous
    if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) return true;
    order.resize(sizes.size());
    std::iota(order.rbegin(), order.rend(), 0);  // n-1, ..., 0
  } else if (order.empty() || order.size() != sizes.size()) {
    return false;
  }
  CheckedInt expected = 1;  // once it overflows, no stride equals it
  for (std::size_t d : order) {
    if (sizes[d] == 1) continue;  // a size-1 dimension's stride never matters
    if (expected.value() != strides[d]) return false;
    expected *= sizes[d];
  }
  return true;
}

bool IsNonOverlappingAndDense(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides) {
  std::vector<std::size_t> dims;
  for (std::size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] >= 2) dims.push_back(d);
  std::stable_sort(dims.begin(), dims.end(), [&](std::size_t a, std::size_t b) { return strides[a] < strides[b]; });
  CheckedInt required = 1;  // once it overflows, no stride equals it
  for (std::size_t d : dims) {
    if (required.value() != strides[d]) return false;
    required *= sizes[d];
  }
  return true;
}

std::vector<std::int64_t> InferDenseStrides(const std::vector<std::int64_t>& sizes,
                                            const std::vector<std::int64_t>& strides) {
  const std::size_t n = sizes.size();
  // Dimensions innermost first, starting from the row-major order; a stable insertion sort
  // by stride, in which a stride-0 dimension compares equal to every other (stays put) and
  // equal strides put the smaller size inner — TensorIterator's rule.
  const std::vector<std::size_t> perm = TensorIteratorOrder(n, [&](std::size_t d0, std::size_t d1) -> int {
    if (strides[d0] == 0 || strides[d1] == 0) return 0;
    if (strides[d0] != strides[d1]) return strides[d0] < strides[d1] ? -1 : 1;
    return sizes[d0] > sizes[d1] ? 1 : 0;
  });
  return DenseStrides(sizes, perm, true);
}

std::int64_t WrapDim(std::int64_t dim, std::int64_t rank) {
  const std::int64_t n = std::max<std::int64_t>(rank, 1);
  if (dim < -n || dim >= n) {
    throw IndexError("Dimension out of range (expected to be in range of [" + Str(-n) + ", " + Str(n - 1) +
                     "], but got " + Str(dim) + ")");
  }
  return dim < 0 ? dim + n : dim;
}

// ---------------------------------------------------------------- views
namespace {

Tensor Restride(const Tensor& t, std::vector<std::int64_t> sizes, std::vector<std::int64_t> strides,
                std::int64_t offset) {
  return t.AsStrided(sizes, strides, offset);
}

template <class V>
V Erase(V v, std::size_t k) {
  v.erase(v.begin() + static_cast<std::ptrdiff_t>(k));
  return v;
}

// infer_size: one -1 becomes what makes the numel match; the numel must match.
std::vector<std::int64_t> InferSize(const std::vector<std::int64_t>& shape, std::int64_t numel) {
  std::vector<std::int64_t> out = shape;
  std::optional<std::size_t> infer;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == -1) {
      if (infer) throw RuntimeError("only one dimension can be inferred");
      infer = k;
    } else if (shape[k] < 0) {
      throw RuntimeError("invalid shape dimension " + Str(shape[k]));
    }
  }
  const std::int64_t known = Numel(infer ? Erase(shape, *infer) : shape);  // exact, or the overflow error
  if (infer && known != 0 && numel % known == 0) {
    out[*infer] = numel / known;
    return out;
  }
  if (!infer && known == numel) return out;
  throw RuntimeError("shape '" + ShapeString(shape) + "' is invalid for input of size " + Str(numel));
}

// v, the stride or storage offset of a view of t; RuntimeError naming the call (describe())
// and t's geometry when it does not fit in int64 (Note [Geometry overflow]).
template <class Describe>
std::int64_t ViewValue(CheckedInt v, const Tensor& t, Describe&& describe) {
  if (!v.value()) {
    throw RuntimeError(describe() + ": a stride or storage offset of the view overflows int64 (input sizes " +
                       ShapeString(t.sizes()) + ", strides " + ShapeString(t.strides()) + ", storage offset " +
                       Str(t.storage_offset()) + ")");
  }
  return *v.value();
}

// The strides of a view of t with `shape`, if one exists: each new dimension must lie
// within one contiguous chunk of t's dimensions (aten computeStride). tensor_numel and
// view_numel are partial products of t's and the view's sizes, so at most t.numel().
std::optional<std::vector<std::int64_t>> ViewStrides(const Tensor& t, const std::vector<std::int64_t>& shape) {
  const std::vector<std::int64_t>& old = t.sizes();
  const std::vector<std::int64_t>& stride = t.strides();
  if (old.empty()) return std::vector<std::int64_t>(shape.size(), 1);
  if (t.numel() == 0) {
    if (shape == old) return stride;
    return ContiguousStrides(shape);
  }
  std::vector<std::int64_t> out(shape.size());
  std::int64_t view_d = static_cast<std::int64_t>(shape.size()) - 1;
  std::int64_t chunk_base = stride.back();
  std::int64_t tensor_numel = 1, view_numel = 1;
  for (std::int64_t d = static_cast<std::int64_t>(old.size()) - 1; d >= 0; --d) {
    tensor_numel *= old[d];
    const bool chunk_ends =
        d == 0 || (old[d - 1] != 1 && stride[d - 1] != (CheckedInt(tensor_numel) * chunk_base).value());
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
      out[view_d] =
          ViewValue(CheckedInt(view_numel) * chunk_base, t, [&] { return "view(" + ShapeString(shape) + ")"; });
      view_numel *= shape[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel) return std::nullopt;
    if (d > 0) {
      chunk_base = stride[d - 1];
      tensor_numel = view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

}  // namespace

Tensor T(const Tensor& t) {
  if (t.dim() > 2) throw RuntimeError("t() expects a tensor with <= 2 dimensions, but self is " + Str(t.dim()) + "D");
  return Transpose(t, 0, t.dim() < 2 ? 0 : 1);
}

Tensor Transpose(const Tensor& t, std::int64_t dim0, std::int64_t dim1) {
  const std::int64_t a = WrapDim(dim0, t.dim()), b = WrapDim(dim1, t.dim());
  std::vector<std::int64_t> sizes = t.sizes(), strides = t.strides();
  if (t.dim() > 0) {
    std::swap(sizes[a], sizes[b]);
    std::swap(strides[a], strides[b]);
  }
  return Restride(t, sizes, strides, t.storage_offset());
}

Tensor Permute(const Tensor& t, const std::vector<std::int64_t>& dims) {
  if (static_cast<std::int64_t>(dims.size()) != t.dim()) {
    throw RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
                       "the desired ordering of dimensions i.e. input.dim() = " + Str(t.dim()) +
                       " is not equal to len(dims) = " + Str(static_cast<std::int64_t>(dims.size())));
  }
  std::vector<std::int64_t> sizes, strides;
  std::vector<bool> seen(dims.size(), false);
  for (std::int64_t d : dims) {
    const std::int64_t w = WrapDim(d, t.dim());
    if (seen[w]) throw RuntimeError("permute(): duplicate dims are not allowed.");
    seen[w] = true;
    sizes.push_back(t.sizes()[w]);
    strides.push_back(t.strides()[w]);
  }
  return Restride(t, sizes, strides, t.storage_offset());
}

Tensor Narrow(const Tensor& t, std::int64_t dim, std::int64_t start, std::int64_t length) {
  if (t.dim() == 0) throw RuntimeError("narrow() cannot be applied to a 0-dim tensor.");
  if (length < 0) throw RuntimeError("narrow(): length must be non-negative.");
  const std::int64_t d = WrapDim(dim, t.dim());
  const std::int64_t size = t.sizes()[d];
  if (start < -size || start > size) {
    throw IndexError("start out of range (expected to be in range of [" + Str(-size) + ", " + Str(size) +
                     "], but got " + Str(start) + ")");
  }
  if (start < 0) start += size;
  if (start > size - length) {
    throw RuntimeError("start (" + Str(start) + ") + length (" + Str(length) + ") exceeds dimension size (" +
                       Str(size) + ").");
  }
  return Slice(t, d, start, start + length, 1);
}

Tensor Select(const Tensor& t, std::int64_t dim, std::int64_t index) {
  if (t.dim() == 0) throw IndexError("select() cannot be applied to a 0-dim tensor.");
  const std::int64_t d = WrapDim(dim, t.dim());
  const std::int64_t size = t.sizes()[d];
  if (index < -size || index >= size) {
    throw IndexError("select(): index " + Str(index) + " out of range for tensor of size " + ShapeString(t.sizes()) +
                     " at dimension " + Str(d));
  }
  if (index < 0) index += size;
  const std::int64_t offset = ViewValue(CheckedInt(t.storage_offset()) + CheckedInt(index) * t.strides()[d], t,
                                        [&] { return "select(" + Str(dim) + ", " + Str(index) + ")"; });
  return Restride(t, Erase(t.sizes(), d), Erase(t.strides(), d), offset);
}

Tensor Slice(const Tensor& t, std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step) {
  if (t.dim() == 0) throw IndexError("slice() cannot be applied to a 0-dim tensor.");
  const std::int64_t d = WrapDim(dim, t.dim());
  if (step <= 0) throw RuntimeError("slice step must be positive");
  const auto describe = [=] {
    return "slice(" + Str(dim) + ", " + Str(start) + ", " + Str(end) + ", " + Str(step) + ")";
  };
  const std::int64_t size = t.sizes()[d];
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<std::int64_t>(start, 0, size);
  end = std::clamp<std::int64_t>(end, start, size);
  std::vector<std::int64_t> sizes = t.sizes(), strides = t.strides();
  sizes[d] = end == start ? 0 : (end - start - 1) / step + 1;  // ceil((end - start) / step), for any step
  const std::int64_t offset = ViewValue(CheckedInt(t.storage_offset()) + CheckedInt(start) * strides[d], t, describe);
  strides[d] = ViewValue(CheckedInt(strides[d]) * step, t, describe);
  return Restride(t, sizes, strides, offset);
}

Tensor Expand(const Tensor& t, const std::vector<std::int64_t>& target) {
  const std::int64_t n = t.dim(), m = static_cast<std::int64_t>(target.size());
  if (m < n) {
    throw RuntimeError("expand(" + ShapeString(t.sizes()) + ", size=" + ShapeString(target) +
                       "): the number of sizes provided (" + Str(m) +
                       ") must be greater or equal to the number of dimensions in the tensor (" + Str(n) + ")");
  }
  if (n == 0) return Restride(t, target, std::vector<std::int64_t>(target.size(), 0), t.storage_offset());
  std::vector<std::int64_t> sizes(m), strides(m);
  for (std::int64_t i = m - 1; i >= 0; --i) {
    const std::int64_t d = n - (m - i);  // the input dimension aligned with output dimension i
    const std::int64_t size = d >= 0 ? t.sizes()[d] : 1;
    std::int64_t want = target[i];
    if (want == -1) {
      if (d < 0) {
        throw RuntimeError("The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension " +
                           Str(i));
      }
      want = size;
    }
    if (size != want) {
      if (size != 1) {
        throw RuntimeError("The expanded size of the tensor (" + Str(want) + ") must match the existing size (" +
                           Str(size) + ") at non-singleton dimension " + Str(i) + ".  Target sizes: " +
                           ShapeString(target) + ".  Tensor sizes: " + ShapeString(t.sizes()));
      }
      sizes[i] = want;
      strides[i] = 0;
      continue;
    }
    sizes[i] = size;
    strides[i] = d >= 0 ? t.strides()[d]
                        : ViewValue(CheckedInt(sizes[i + 1]) * strides[i + 1], t,
                                    [&] { return "expand(" + ShapeString(target) + ")"; });
  }
  return Restride(t, sizes, strides, t.storage_offset());
}

Tensor Unsqueeze(const Tensor& t, std::int64_t dim) {
  const std::int64_t d = WrapDim(dim, t.dim() + 1);
  std::vector<std::int64_t> sizes = t.sizes(), strides = t.strides();
  const std::int64_t stride = d >= t.dim() ? 1
                                            : ViewValue(CheckedInt(sizes[d]) * strides[d], t,
                                                        [&] { return "unsqueeze(" + Str(dim) + ")"; });
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return Restride(t, sizes, strides, t.storage_offset());
}

Tensor Squeeze(const Tensor& t, std::optional<std::int64_t> dim) {
  const std::int64_t only = dim ? WrapDim(*dim, t.dim()) : -1;  // -1: every size-1 dimension
  std::vector<std::int64_t> sizes, strides;
  for (std::int64_t d = 0; d < t.dim(); ++d) {
    if (t.sizes()[d] == 1 && (only < 0 || only == d)) continue;
    sizes.push_back(t.sizes()[d]);
    strides.push_back(t.strides()[d]);
  }
  return Restride(t, sizes, strides, t.storage_offset());
}

Tensor View(const Tensor& t, const std::vector<std::int64_t>& shape) {
  const std::vector<std::int64_t> sizes = InferSize(shape, t.numel());
  const std::optional<std::vector<std::int64_t>> strides = ViewStrides(t, sizes);
  if (!strides) {
    throw RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                       "spans across two contiguous subspaces). Use .reshape(...) instead.");
  }
  return Restride(t, sizes, *strides, t.storage_offset());
}

Tensor Reshape(const Tensor& t, const std::vector<std::int64_t>& shape) {
  const std::vector<std::int64_t> sizes = InferSize(shape, t.numel());
  if (ViewStrides(t, sizes)) return View(t, sizes);
  const Tensor copy = Clone(t, MemoryFormat::kContiguous);
  return copy.AsStrided(sizes, ContiguousStrides(sizes), 0);
}

// ---------------------------------------------------------------- copies
Tensor EmptyLike(const Tensor& t, MemoryFormat format) { return EmptyLike(t, format, t.dtype(), t.device()); }

Tensor EmptyLike(const Tensor& t, MemoryFormat format, ScalarType dtype, const Device& device) {
  if (format != MemoryFormat::kPreserve) return Empty(t.sizes(), dtype, format, device);
  return Tensor::EmptyStrided(t.sizes(), PreserveStrides(t), dtype, Storage::Init::kZero, device);
}

bool IsDense(const Tensor& t) { return IsDense(t.sizes(), t.strides()); }

bool IsDense(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides) {
  return IsContiguous(sizes, strides, MemoryFormat::kContiguous) ||
         IsContiguous(sizes, strides, MemoryFormat::kChannelsLast) ||
         IsContiguous(sizes, strides, MemoryFormat::kChannelsLast3d) || IsNonOverlappingAndDense(sizes, strides);
}

std::vector<std::int64_t> PreserveStrides(const Tensor& t) {
  return IsDense(t) ? t.strides() : InferDenseStrides(t.sizes(), t.strides());
}

namespace {
// A contiguous tensor of t's dtype on `device` holding t's elements, moved between devices
// as raw bytes (t on the cpu or on a backend device).
Tensor Transfer(const Tensor& t, const Device& device) {
  const Tensor dense = IsContiguous(t, MemoryFormat::kContiguous) ? t : Clone(t, MemoryFormat::kContiguous);
  Tensor out = Tensor::Empty(t.sizes(), t.dtype(), device);
  // Within dense's checked storage (Note [Geometry overflow]).
  const std::size_t nbytes = static_cast<std::size_t>(t.numel()) * Info(t.dtype()).itemsize;
  const std::size_t from = static_cast<std::size_t>(dense.storage_offset()) * Info(t.dtype()).itemsize;
  const Storage staged(nbytes, Storage::Init::kUninitialized);
  dense.storage()->ReadBytes(from, staged.data(), nbytes);
  out.storage()->WriteBytes(0, staged.data(), nbytes);
  return out;
}
}  // namespace

void CopyInto(const Tensor& dst, const Tensor& src) {
  if (dst.sizes() != src.sizes()) {
    throw InternalError("CopyInto: sizes " + ShapeString(dst.sizes()) + " vs " + ShapeString(src.sizes()));
  }
  for (const ScalarType d : {dst.dtype(), src.dtype()}) {
    if (IsBarebonesUnsigned(d)) {  // reference/scalar_type.h: made and described, never copied
      throw RuntimeError(std::string("the reference copies no ") + Name(d) +
                         " tensor: it makes them and reads their metadata only");
    }
  }
  if (dst.device().is_meta()) return;  // a meta tensor has no data to write
  if (dst.numel() == 0) return;
  if (src.device() != dst.device()) {
    // Across devices: the elements travel as raw bytes, then cast on the destination.
    return CopyInto(dst, Transfer(src, dst.device()));
  }
  if (!dst.device().is_cpu()) {
    return BackendFor(dst.device())
        .Copy(dst.sizes(), TensorOperand(dst, dst.sizes()), TensorOperand(src, dst.sizes()),
              static_cast<int>(dst.device().index()));
  }
  ForEachIndex(src.sizes(), [&](const std::vector<std::int64_t>& index) {
    dst.Write(dst.Offset(index), src.Read(src.Offset(index)));
  });
}

Tensor Clone(const Tensor& t, MemoryFormat format) {
  Tensor out = EmptyLike(t, format);
  CopyInto(out, t);
  out.RecordHistory("CloneBackward0", t.requires_grad());
  return out;
}

Tensor To(const Tensor& t, ScalarType dtype, const Device& device) {
  Tensor out = EmptyLike(t, MemoryFormat::kPreserve, dtype, device);
  CopyInto(out, t);
  out.RecordHistory("ToCopyBackward0", t.requires_grad());
  return out;
}

Tensor Contiguous(const Tensor& t, MemoryFormat format) {
  if (IsContiguous(t, format)) return t;
  if (format == MemoryFormat::kPreserve) {
    throw RuntimeError("preserve memory format is unsupported by the contiguous operator");
  }
  return Clone(t, format);
}

}  // namespace tcts::ref
