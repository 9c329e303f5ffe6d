// The C++ testee kit's operations: the table of handlers by request name
// (TesteeServer::State::Ops), generated from spec/interface.toml — each decodes its arguments,
// calls the candidate.h operation of the same name and encodes its answer (a value, a new
// tensor's handle, or done) —, the hand-written handlers of the custom ops (asarray, DLPack,
// data_ptr: host memory), and the decoders and encoders they use that need the server's state
// (a live tensor's handle, an operand, a new handle). Members of TesteeServer::State
// (tcts_testee_state.h).
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

// ---- answers
Result<Json> TesteeServer::State::NewTensor(const Result<TensorHandle>& r) {
  if (!r.ok()) return r.error();
  if (r.value() == nullptr) return Internal("the candidate answered a null tensor handle");
  const std::int64_t h = next_handle_++;
  handles_.emplace(h, Entry{r.value(), keeps_});
  if (protocol_ >= 3) facts_ = Facts(h);
  return Json(h);
}

// The fact ops are those spec/interface.toml marks `fact`, read from the description the kit is
// built with (as the Python and Node.js kits read the one hello sends). One that answers an
// error is left out: the suite asks it, and gets the error then.
Json TesteeServer::State::Facts(std::int64_t h) {
  static const std::vector<std::string> kFactOps = [] {
    std::vector<std::string> ops;
    const Json doc = Json::parse(TCTS_INTERFACE_JSON);
    for (const Json& o : doc.at("ops")) {
      if (o.value("fact", false)) ops.push_back(o.at("name").get<std::string>());
    }
    return ops;
  }();
  Json facts = Json::object();
  const Json q = {{"t", h}};
  for (const std::string& op : kFactOps) {
    auto it = Ops().find(op);
    if (it == Ops().end()) continue;
    try {
      Result<Json> r = it->second(*this, q);
      if (r.ok()) facts[op] = std::move(r.value());
    } catch (const std::exception&) {  // as an error answer: left out
    }
  }
  return facts.empty() ? Json() : facts;
}

Result<Json> TesteeServer::State::Done(const Status& s) {
  if (!s.ok()) return s.error();
  return Json(nullptr);
}

// ---- the custom operations (spec/interface.toml: they move host memory or name it)
// storage
Result<Json> TesteeServer::State::OnDataPtr(const Json& q) {
  Result<std::uintptr_t> r = c_.data_ptr(Tensor(q, "t"));
  if (!r.ok()) return r.error();
  return Address(r.value());
}

// asarray
Result<Json> TesteeServer::State::OnAsarray(const Json& q) {
  AsarrayOptions options;
  options.dtype = wire::Arg<std::optional<DType>>(q, "dtype");
  options.device = wire::Arg<std::optional<std::string>>(q, "device");
  options.copy = wire::Arg<std::optional<bool>>(q, "copy");
  options.requires_grad = wire::Arg<std::optional<bool>>(q, "requires_grad");
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
    source.array.dtype = wire::Arg<DType>(src, "dtype");
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
Result<Json> TesteeServer::State::OnToDlpack(const Json& q) {
  Result<DLManagedTensor*> r = c_.to_dlpack(Tensor(q, "t"));
  if (!r.ok()) return r.error();
  if (r.value() == nullptr) return Internal("the candidate's to_dlpack answered a null DLManagedTensor");
  return Export(r.value());
}

Result<Json> TesteeServer::State::OnFromDlpack(const Json& q) {
  const std::int64_t id = ImportDLPack(q);
  return NewTensor(Importing(id, [&] { return c_.from_dlpack(&imports_.at(id)->managed); }));
}

const std::unordered_map<std::string, TesteeServer::State::Handler>& TesteeServer::State::Ops() {
  static const std::unordered_map<std::string, Handler> ops = {
#include "spec/interface_kit.inc"
  };
  return ops;
}

}  // namespace tcts
