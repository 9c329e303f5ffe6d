// The C++ testee kit's host memory (tcts_testee.h: "regions"): the blocks of bytes the suite lends
// (an asarray source, a DLPack producer's memory), registered as regions and kept in step with the
// suite's copy; the DLPack tensors the suite lends, as real DLManagedTensors over such blocks whose
// deleter tells the suite; the DLPack tensors the library exports, mirrored to the suite; and
// addresses the library answers, named relative to a region. Members of TesteeServer::State
// (tcts_testee_state.h).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "conformance/protocol/cxx/tcts_testee_state.h"
#include "conformance/protocol/wire.h"

namespace tcts {

// ---- host memory
TesteeServer::State::Region* TesteeServer::State::Find(std::int64_t id) {
  for (Region& r : regions_) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

// A block was freed: its region goes, and the suite hears so.
void TesteeServer::State::Forget(std::int64_t id, const std::byte* data) {
  if (closing_) return;
  auto it = std::find_if(regions_.begin(), regions_.end(), [&](const Region& r) { return r.id == id && r.data == data; });
  if (it == regions_.end()) return;
  regions_.erase(it);
  released_.push_back(id);
}

void TesteeServer::State::ReleaseRegion(std::int64_t id) {
  auto it = std::find_if(regions_.begin(), regions_.end(), [&](const Region& r) { return r.id == id; });
  if (it == regions_.end()) return;
  DLManagedTensor* m = it->export_tensor;
  regions_.erase(it);  // its keeps go after the library's deleter ran
  if (m != nullptr && m->deleter != nullptr) m->deleter(m);
}

// src["region"] = {"id", "bytes"}: a new block holding the bytes, registered as that region.
std::shared_ptr<TesteeServer::State::Block> TesteeServer::State::Lend(const Json& src) {
  const Json& reg = wire::Get(src, "region", Json::value_t::object);
  const std::int64_t id = wire::GetInt(reg, "id");
  const std::vector<std::byte> bytes =
      wire::Unbase64(wire::StringOf(Opt(reg, "bytes", Json("")), "region.bytes"), "region.bytes");
  ReleaseRegion(id);  // a suite reusing an id replaces the region
  const std::size_t capacity = (std::max<std::size_t>(bytes.size(), 1) + 63) / 64 * 64;
  auto block = std::make_shared<Block>();
  block->data = static_cast<std::byte*>(std::aligned_alloc(64, capacity));
  if (block->data == nullptr) throw std::bad_alloc();
  block->server = this;
  block->region = id;
  block->size = bytes.size();
  if (!bytes.empty()) std::memcpy(block->data, bytes.data(), bytes.size());
  Region r;
  r.id = id;
  r.Assign(block->data, bytes.size());
  regions_.push_back(std::move(r));
  return block;
}

void TesteeServer::State::ImportDeleter(DLManagedTensor* m) {
  auto* import = static_cast<Imported*>(m->manager_ctx);
  State* s = import->server;
  const std::int64_t id = import->block->region;
  s->deleted_.push_back(id);
  // The library is done with it: freed at the next request, after this call has returned.
  auto it = s->imports_.find(id);
  if (it != s->imports_.end() && it->second.get() == import) {
    s->graveyard_.push_back(std::move(it->second));
    s->imports_.erase(it);
  }
}

// A DLPack tensor as the suite describes it (process_candidate.cc's from_dlpack_impl),
// over a new block: returns its region id.
std::int64_t TesteeServer::State::ImportDLPack(const Json& src) {
  auto import = std::make_unique<Imported>();
  import->server = this;
  import->block = Lend(src);
  const std::int64_t id = import->block->region;
  wire::FromJson(src, "source", &import->descriptor);
  import->managed.dl_tensor = wire::DLTensorOver(import->block->data, import->descriptor);
  import->managed.manager_ctx = import.get();
  import->managed.deleter = &ImportDeleter;
  imports_[id] = std::move(import);
  return id;
}

// A DLPack tensor the library exported, mirrored to the suite as region `id` < 0.
Json TesteeServer::State::Export(DLManagedTensor* m) {
  const DLTensor& t = m->dl_tensor;
  std::vector<std::int64_t> shape(t.shape, t.shape + std::max(t.ndim, 0));
  const bool compact = t.strides == nullptr;
  const std::vector<std::int64_t> strides =
      compact ? wire::CompactStrides(shape) : std::vector<std::int64_t>(t.strides, t.strides + shape.size());
  const std::int64_t item = wire::DLItemsize(t.dtype);
  std::vector<std::int64_t> byte_strides = strides;
  for (std::int64_t& s : byte_strides) s *= item;
  std::int64_t lo = 0, hi = 0;
  wire::ByteExtent(shape, byte_strides, item, &lo, &hi);
  const std::uintptr_t data = reinterpret_cast<std::uintptr_t>(t.data);
  const std::uintptr_t first = data + static_cast<std::uintptr_t>(t.byte_offset) + static_cast<std::uintptr_t>(lo);
  Region r;
  r.id = next_export_--;
  r.Assign(reinterpret_cast<std::byte*>(first),
           t.device.device_type == kDLCPU && t.data != nullptr ? static_cast<std::size_t>(hi - lo) : 0);
  r.export_tensor = m;
  r.keeps = keeps_;
  Json answer = wire::ToJson(wire::Describe(t, static_cast<std::int64_t>(data - first)), protocol_);
  answer.erase("null_data");  // an export's data is where data_offset says
  answer["region"] = r.Offer(r.id, protocol_);
  regions_.push_back(std::move(r));
  return answer;
}

// An address the library answered: inside a region, named relative to it (the suite's copy
// of those bytes is elsewhere); otherwise the number.
Json TesteeServer::State::Address(std::uintptr_t a) const {
  for (const Region& r : regions_) {
    if (r.Holds(a)) return r.AddressJson(r.id, a, protocol_);
  }
  return wire::ToJson(static_cast<std::uint64_t>(a), protocol_);
}

}  // namespace tcts
