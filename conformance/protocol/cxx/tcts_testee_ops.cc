// The C++ testee kit's operations: one handler per request name of PROTOCOL.md, each decoding its
// arguments, calling the candidate.h operation of the same name and encoding its answer (a value,
// a new tensor's handle, or done), and the table that names them (TesteeServer::State::Ops). With
// the argument decoders (a live tensor's handle, an operand, a dtype, ...) and answer encoders
// they use. Members of TesteeServer::State (tcts_testee_state.h).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "conformance/protocol/cxx/tcts_testee_state.h"
#include "conformance/protocol/wire.h"

namespace tcts {

// ---- arguments
// The tensor of handle req[key]; its kept memory passes to whatever this request makes.
const TensorHandle& TesteeServer::State::Tensor(const Json& req, const char* key) {
  const Json& h = wire::Get(req, key);
  auto it = h.is_number_integer() ? handles_.find(wire::IntOf(h, key)) : handles_.end();
  if (it == handles_.end()) throw ProtocolError(key, "the handle of a live tensor", Shown(h));
  for (const auto& k : it->second.keeps) {
    if (std::find(keeps_.begin(), keeps_.end(), k) == keeps_.end()) keeps_.push_back(k);
  }
  return it->second.tensor;
}

Operand TesteeServer::State::OperandOf(const Json& req, const char* key) {
  const Json& v = wire::Get(req, key);
  if (v.is_object() && v.contains("tensor")) return Tensor(v, "tensor");
  if (v.is_object() && v.contains("scalar")) return wire::ScalarOf(v["scalar"], key);
  throw ProtocolError(key, "{\"tensor\": h} or {\"scalar\": s}", Shown(v));
}

DType TesteeServer::State::DTypeArg(const Json& req, const char* key) {
  return wire::DTypeOf(wire::Get(req, key), key);
}

MemoryFormat TesteeServer::State::Format(const Json& req) {
  return wire::MemoryFormatOf(wire::Get(req, "memory_format"), "memory_format");
}

Scalar TesteeServer::State::ScalarArg(const Json& req, const char* key) {
  return wire::ScalarOf(wire::Get(req, key), key);
}

BinaryOp TesteeServer::State::Op(const Json& req) {
  const std::string name = wire::GetString(req, "binary_op");
  if (std::optional<BinaryOp> op = BinaryOpFromName(name)) return *op;
  throw ProtocolError("binary_op", "add, sub, mul or div", "\"" + name + "\"");
}

std::optional<std::string> TesteeServer::State::OptString(const Json& req, const char* key) {
  const Json& v = Opt(req, key, kNull);
  if (v.is_null()) return std::nullopt;
  return wire::StringOf(v, key);
}

// ---- answers
Result<Json> TesteeServer::State::NewTensor(const Result<TensorHandle>& r) {
  if (!r.ok()) return r.error();
  if (r.value() == nullptr) return Internal("the candidate answered a null tensor handle");
  const std::int64_t h = next_handle_++;
  handles_.emplace(h, Entry{r.value(), keeps_});
  return Json(h);
}

Result<Json> TesteeServer::State::Done(const Status& s) {
  if (!s.ok()) return s.error();
  return Json(nullptr);
}

template <class T, class F>
Result<Json> TesteeServer::State::Map(const Result<T>& r, F encode) {
  if (!r.ok()) return r.error();
  return Json(encode(r.value()));
}

Result<Json> TesteeServer::State::Name(const Result<DType>& r) {
  return Map(r, [](DType d) { return DTypeName(d); });
}

template <class T>
Result<Json> TesteeServer::State::Plain(const Result<T>& r) {
  return Map(r, [](const T& v) { return v; });
}

// ---- the operations (candidate.h), by request name
// dtypes
Result<Json> TesteeServer::State::OnDTypeFromName(const Json& q) {
  return Name(c_.dtype_from_name(wire::GetString(q, "name")));
}

Result<Json> TesteeServer::State::OnDTypeInfo(const Json& q) {
  return Map(c_.dtype_info(DTypeArg(q, "dtype")), [](const DTypeInfo& i) {
    return Json{{"itemsize", i.itemsize}, {"is_floating_point", i.is_floating_point}, {"is_complex", i.is_complex},
                {"is_signed", i.is_signed}};
  });
}

Result<Json> TesteeServer::State::OnFinfo(const Json& q) {
  return Map(c_.finfo(DTypeArg(q, "dtype")), [](const FloatInfo& f) {
    return Json{{"bits", f.bits}, {"eps", wire::FloatJson(f.eps)}, {"max", wire::FloatJson(f.max)},
                {"min", wire::FloatJson(f.min)}, {"tiny", wire::FloatJson(f.tiny)}};
  });
}

Result<Json> TesteeServer::State::OnLegacyConstructor(const Json& q) {
  return Plain(c_.legacy_constructor(DTypeArg(q, "dtype")));
}

// promotion and casting
Result<Json> TesteeServer::State::OnPromoteTypes(const Json& q) {
  return Name(c_.promote_types(DTypeArg(q, "a"), DTypeArg(q, "b")));
}

Result<Json> TesteeServer::State::OnResultType(const Json& q) {
  return Name(c_.result_type(OperandOf(q, "a"), OperandOf(q, "b")));
}

Result<Json> TesteeServer::State::OnCanCast(const Json& q) {
  return Plain(c_.can_cast(DTypeArg(q, "from"), DTypeArg(q, "to")));
}

Result<Json> TesteeServer::State::OnDefaultDType(const Json&) { return Name(c_.default_dtype()); }

Result<Json> TesteeServer::State::OnSetDefaultDType(const Json& q) {
  return Done(c_.set_default_dtype(DTypeArg(q, "dtype")));
}

// tensors
Result<Json> TesteeServer::State::OnMakeTensor(const Json& q) {
  return NewTensor(c_.make_tensor(wire::Ints(q, "sizes"), DTypeArg(q, "dtype"), wire::ScalarsOf(wire::Get(q, "values"), "values")));
}

Result<Json> TesteeServer::State::OnMeta(const Json& q) {
  return Map(c_.meta(Tensor(q, "t")), [](const TensorMeta& m) {
    return Json{{"dtype", DTypeName(m.dtype)}, {"sizes", m.sizes}, {"strides", m.strides},
                {"storage_offset", m.storage_offset}, {"device", m.device}, {"layout", LayoutName(m.layout)}};
  });
}

Result<Json> TesteeServer::State::OnValues(const Json& q) { return Map(c_.values(Tensor(q, "t")), wire::Scalars); }

// arithmetic
Result<Json> TesteeServer::State::OnBinary(const Json& q) {
  return NewTensor(c_.binary(Op(q), OperandOf(q, "a"), OperandOf(q, "b"), ScalarArg(q, "alpha")));
}

Result<Json> TesteeServer::State::OnBinaryOut(const Json& q) {
  return Done(c_.binary_out(Op(q), OperandOf(q, "a"), OperandOf(q, "b"), ScalarArg(q, "alpha"), Tensor(q, "out")));
}

Result<Json> TesteeServer::State::OnBinaryInplace(const Json& q) {
  return Done(c_.binary_inplace(Op(q), Tensor(q, "self"), OperandOf(q, "other"), ScalarArg(q, "alpha")));
}

// strided tensors
Result<Json> TesteeServer::State::OnEmpty(const Json& q) {
  return NewTensor(c_.empty(wire::Ints(q, "sizes"), DTypeArg(q, "dtype"), wire::LayoutOf(wire::Get(q, "layout"), "layout"), Format(q)));
}

Result<Json> TesteeServer::State::OnEmptyStrided(const Json& q) {
  return NewTensor(c_.empty_strided(wire::Ints(q, "sizes"), wire::Ints(q, "strides"), DTypeArg(q, "dtype")));
}

Result<Json> TesteeServer::State::OnIsContiguous(const Json& q) {
  return Plain(c_.is_contiguous(Tensor(q, "t"), Format(q)));
}

Result<Json> TesteeServer::State::OnAsStrided(const Json& q) {
  return NewTensor(c_.as_strided(Tensor(q, "t"), wire::Ints(q, "sizes"), wire::Ints(q, "strides"), wire::GetInt(q, "storage_offset")));
}

Result<Json> TesteeServer::State::OnT(const Json& q) { return NewTensor(c_.t(Tensor(q, "t"))); }

Result<Json> TesteeServer::State::OnTranspose(const Json& q) {
  return NewTensor(c_.transpose(Tensor(q, "t"), wire::GetInt(q, "dim0"), wire::GetInt(q, "dim1")));
}

Result<Json> TesteeServer::State::OnPermute(const Json& q) {
  return NewTensor(c_.permute(Tensor(q, "t"), wire::Ints(q, "dims")));
}

Result<Json> TesteeServer::State::OnNarrow(const Json& q) {
  return NewTensor(c_.narrow(Tensor(q, "t"), wire::GetInt(q, "dim"), wire::GetInt(q, "start"), wire::GetInt(q, "length")));
}

Result<Json> TesteeServer::State::OnSelect(const Json& q) {
  return NewTensor(c_.select(Tensor(q, "t"), wire::GetInt(q, "dim"), wire::GetInt(q, "index")));
}

Result<Json> TesteeServer::State::OnSlice(const Json& q) {
  return NewTensor(c_.slice(Tensor(q, "t"), wire::GetInt(q, "dim"), wire::GetInt(q, "start"), wire::GetInt(q, "end"),
                            wire::GetInt(q, "step")));
}

Result<Json> TesteeServer::State::OnExpand(const Json& q) {
  return NewTensor(c_.expand(Tensor(q, "t"), wire::Ints(q, "sizes")));
}

Result<Json> TesteeServer::State::OnUnsqueeze(const Json& q) {
  return NewTensor(c_.unsqueeze(Tensor(q, "t"), wire::GetInt(q, "dim")));
}

Result<Json> TesteeServer::State::OnSqueeze(const Json& q) {
  const Json& dim = wire::Get(q, "dim");
  return NewTensor(c_.squeeze(Tensor(q, "t"), dim.is_null() ? std::nullopt : std::optional<std::int64_t>(wire::IntOf(dim, "dim"))));
}

Result<Json> TesteeServer::State::OnView(const Json& q) {
  return NewTensor(c_.view(Tensor(q, "t"), wire::Ints(q, "sizes")));
}

Result<Json> TesteeServer::State::OnReshape(const Json& q) {
  return NewTensor(c_.reshape(Tensor(q, "t"), wire::Ints(q, "sizes")));
}

Result<Json> TesteeServer::State::OnContiguous(const Json& q) {
  return NewTensor(c_.contiguous(Tensor(q, "t"), Format(q)));
}

Result<Json> TesteeServer::State::OnClone(const Json& q) { return NewTensor(c_.clone(Tensor(q, "t"), Format(q))); }

Result<Json> TesteeServer::State::OnEmptyLike(const Json& q) {
  return NewTensor(c_.empty_like(Tensor(q, "t"), Format(q)));
}

// storage
Result<Json> TesteeServer::State::OnStorage(const Json& q) {
  return Map(c_.storage(Tensor(q, "t")), [](const StorageInfo& s) {
    return Json{{"id", static_cast<std::int64_t>(s.id)}, {"numel", s.numel}};
  });
}

Result<Json> TesteeServer::State::OnStorageValues(const Json& q) {
  return Map(c_.storage_values(Tensor(q, "t")), wire::Scalars);
}

Result<Json> TesteeServer::State::OnWriteStorage(const Json& q) {
  return Done(c_.write_storage(Tensor(q, "t"), wire::GetInt(q, "index"), ScalarArg(q, "value")));
}

Result<Json> TesteeServer::State::OnWriteElement(const Json& q) {
  return Done(c_.write_element(Tensor(q, "t"), wire::Ints(q, "index"), ScalarArg(q, "value")));
}

Result<Json> TesteeServer::State::OnDataPtr(const Json& q) {
  return Map(c_.data_ptr(Tensor(q, "t")), [this](std::uintptr_t a) { return Address(a); });
}

// devices
Result<Json> TesteeServer::State::OnDevice(const Json& q) {
  return Map(c_.device(wire::DeviceArgOf(wire::Get(q, "arg", Json::value_t::object), "arg")), [](const DeviceInfo& d) {
    return Json{{"type", d.type}, {"index", d.index ? Json(*d.index) : Json(nullptr)}, {"str", d.str}, {"repr", d.repr}};
  });
}

Result<Json> TesteeServer::State::OnCompareDevices(const Json& q) {
  return Map(c_.compare_devices(wire::DeviceArgOf(wire::Get(q, "a", Json::value_t::object), "a"),
                                wire::DeviceArgOf(wire::Get(q, "b", Json::value_t::object), "b")),
             [](const DeviceComparison& c) { return Json{{"equal", c.equal}, {"same_hash", c.same_hash}}; });
}

Result<Json> TesteeServer::State::OnDefaultDevice(const Json&) { return Plain(c_.default_device()); }

Result<Json> TesteeServer::State::OnSetDefaultDevice(const Json& q) {
  return Done(c_.set_default_device(wire::GetString(q, "device")));
}

Result<Json> TesteeServer::State::OnEnterDevice(const Json& q) {
  return Done(c_.enter_device(wire::GetString(q, "device")));
}

Result<Json> TesteeServer::State::OnExitDevice(const Json&) { return Done(c_.exit_device()); }

Result<Json> TesteeServer::State::OnEmptyOn(const Json& q) {
  return NewTensor(c_.empty_on(wire::Ints(q, "sizes"), DTypeArg(q, "dtype"), OptString(q, "device")));
}

// asarray
Result<Json> TesteeServer::State::OnAsarray(const Json& q) {
  AsarrayOptions options;
  if (const Json& d = Opt(q, "dtype", kNull); !d.is_null()) options.dtype = wire::DTypeOf(d, "dtype");
  options.device = OptString(q, "device");
  if (const Json& c = Opt(q, "copy", kNull); !c.is_null()) options.copy = wire::BoolOf(c, "copy");
  const Json& src = wire::Get(q, "source", Json::value_t::object);
  const std::string kind = wire::GetString(src, "kind");
  AsarraySource source;
  std::shared_ptr<Block> lent;  // freed at the end of this call unless the result keeps it
  std::int64_t imported = -1;  // regions the suite lends have positive ids
  if (kind == "tensor") {
    source.kind = AsarraySource::Kind::kTensor;
    source.tensor = Tensor(src, "tensor");
  } else if (kind == "array" || kind == "array_scalar") {
    lent = Lend(src);
    source.kind = kind == "array" ? AsarraySource::Kind::kArray : AsarraySource::Kind::kArrayScalar;
    source.array.data = lent->data + wire::IntOf(Opt(src, "offset", kZero), "offset");
    source.array.dtype = DTypeArg(src, "dtype");
    source.array.sizes = IntsOr(src, "shape");
    source.array.byte_strides = IntsOr(src, "byte_strides");
  } else if (kind == "buffer") {
    lent = Lend(src);
    source.kind = AsarraySource::Kind::kBuffer;
    source.buffer = lent->data;
    source.buffer_bytes = lent->size;
  } else if (kind == "dlpack") {
    imported = ImportDLPack(src);
    source.kind = AsarraySource::Kind::kDLPack;
    source.dlpack = &imports_.at(imported)->managed;
  } else if (kind == "sequence") {
    source.kind = AsarraySource::Kind::kSequence;
    source.value = wire::PyValueOf(wire::Get(src, "value"), "source.value");
  } else {
    throw ProtocolError("source.kind", "tensor, array, array_scalar, dlpack, buffer or sequence", "\"" + kind + "\"");
  }
  Result<TensorHandle> r = Importing(imported, [&] { return c_.asarray(source, options); });
  if (r.ok() && lent) keeps_.push_back(lent);
  return NewTensor(r);
}

// DLPack
Result<Json> TesteeServer::State::OnToDLPack(const Json& q) {
  Result<DLManagedTensor*> r = c_.to_dlpack(Tensor(q, "t"));
  if (!r.ok()) return r.error();
  if (r.value() == nullptr) return Internal("the candidate's to_dlpack answered a null DLManagedTensor");
  return Export(r.value());
}

Result<Json> TesteeServer::State::OnFromDLPack(const Json& q) {
  const std::int64_t id = ImportDLPack(q);
  return NewTensor(Importing(id, [&] { return c_.from_dlpack(&imports_.at(id)->managed); }));
}

const std::unordered_map<std::string, TesteeServer::State::Handler>& TesteeServer::State::Ops() {
  static const std::unordered_map<std::string, Handler> ops = {
      {"dtype_from_name", &State::OnDTypeFromName},
      {"dtype_info", &State::OnDTypeInfo},
      {"finfo", &State::OnFinfo},
      {"legacy_constructor", &State::OnLegacyConstructor},
      {"promote_types", &State::OnPromoteTypes},
      {"result_type", &State::OnResultType},
      {"can_cast", &State::OnCanCast},
      {"default_dtype", &State::OnDefaultDType},
      {"set_default_dtype", &State::OnSetDefaultDType},
      {"make_tensor", &State::OnMakeTensor},
      {"meta", &State::OnMeta},
      {"values", &State::OnValues},
      {"binary", &State::OnBinary},
      {"binary_out", &State::OnBinaryOut},
      {"binary_inplace", &State::OnBinaryInplace},
      {"empty", &State::OnEmpty},
      {"empty_strided", &State::OnEmptyStrided},
      {"is_contiguous", &State::OnIsContiguous},
      {"as_strided", &State::OnAsStrided},
      {"t", &State::OnT},
      {"transpose", &State::OnTranspose},
      {"permute", &State::OnPermute},
      {"narrow", &State::OnNarrow},
      {"select", &State::OnSelect},
      {"slice", &State::OnSlice},
      {"expand", &State::OnExpand},
      {"unsqueeze", &State::OnUnsqueeze},
      {"squeeze", &State::OnSqueeze},
      {"view", &State::OnView},
      {"reshape", &State::OnReshape},
      {"contiguous", &State::OnContiguous},
      {"clone", &State::OnClone},
      {"empty_like", &State::OnEmptyLike},
      {"storage", &State::OnStorage},
      {"storage_values", &State::OnStorageValues},
      {"write_storage", &State::OnWriteStorage},
      {"write_element", &State::OnWriteElement},
      {"data_ptr", &State::OnDataPtr},
      {"device", &State::OnDevice},
      {"compare_devices", &State::OnCompareDevices},
      {"default_device", &State::OnDefaultDevice},
      {"set_default_device", &State::OnSetDefaultDevice},
      {"enter_device", &State::OnEnterDevice},
      {"exit_device", &State::OnExitDevice},
      {"empty_on", &State::OnEmptyOn},
      {"asarray", &State::OnAsarray},
      {"to_dlpack", &State::OnToDLPack},
      {"from_dlpack", &State::OnFromDLPack},
  };
  return ops;
}

}  // namespace tcts
