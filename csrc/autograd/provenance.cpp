#include "autograd/provenance.h"

#include <mutex>
#include <unordered_map>
#include <vector>

#include "autograd/node.h"
#include "autograd/variable.h"
#include "core/silent_writes.h"

namespace gradtrack::autograd {

namespace {
bool g_enabled = true;
thread_local uint16_t t_label_override = 0;
thread_local bool t_writer_is_base = false;
std::mutex g_label_mutex;
std::vector<std::string>& labels() {
  static auto* v = new std::vector<std::string>{"an in-place op"};
  return *v;
}
std::unordered_map<std::string, uint16_t>& label_ids() {
  static auto* m = new std::unordered_map<std::string, uint16_t>();
  return *m;
}
}  // namespace

uint32_t (*g_capture_location)() = nullptr;
std::string (*g_describe_location)(uint32_t) = nullptr;

bool Provenance::enabled() { return g_enabled; }
void Provenance::set(bool enabled) { g_enabled = enabled; }

std::string describe_location(uint32_t location) {
  if (location == 0 || !g_describe_location) return "an unknown location";
  return g_describe_location(location);
}

uint16_t intern_label(const std::string& label) {
  std::lock_guard<std::mutex> lock(g_label_mutex);
  auto it = label_ids().find(label);
  if (it != label_ids().end()) return it->second;
  auto id = static_cast<uint16_t>(labels().size());
  labels().push_back(label);
  label_ids()[label] = id;
  return id;
}

const std::string& label_name(uint16_t id) {
  std::lock_guard<std::mutex> lock(g_label_mutex);
  return id < labels().size() ? labels()[id] : labels()[0];
}

ScopedWriteLabel::ScopedWriteLabel(const std::string& label, bool writer_is_base)
    : prev_(t_label_override), prev_base_(t_writer_is_base) {
  t_label_override = intern_label(label);
  t_writer_is_base = writer_is_base;
}
ScopedWriteLabel::~ScopedWriteLabel() {
  t_label_override = prev_;
  t_writer_is_base = prev_base_;
}

uint16_t swap_write_label(uint16_t label) {
  uint16_t prev = t_label_override;
  t_label_override = label;
  return prev;
}

namespace {
// Whether anyone reads a write's record: provenance, or the silent-write
// detector when the written memory is watched (NOTE [Silent writes]).
bool write_is_recorded(const Tensor& written) {
  if (Provenance::enabled()) return true;
  const silent_writes::StorageLedger* l = written->storage()->ledger();
  return l && l->watched.load(std::memory_order_relaxed) > 0;
}
}  // namespace

uint8_t write_via(const Tensor& writer) {
  switch (writer->alias_kind()) {
    case TensorImpl::AliasKind::Detach: return 1;
    case TensorImpl::AliasKind::ViewDtype: return 3;
    case TensorImpl::AliasKind::Data: return 4;
    case TensorImpl::AliasKind::None: break;
  }
  if (!is_view(writer)) return 0;
  return view_base(writer)->alias_kind() == TensorImpl::AliasKind::Data ? 5 : 2;
}

const char* via_text(uint8_t via) {
  switch (via) {
    case 1: return " (through a detach() alias)";
    case 2: return " (through a view)";
    case 3: return " (through a view(dtype) alias)";
    case 4: return " (through .data)";
    case 5: return " (through a view of .data)";
    default: return "";
  }
}

void note_write(const Tensor& written, const char* label) {
  if (!write_is_recorded(written)) return;
  static std::unordered_map<const char*, uint16_t>* cache =
      new std::unordered_map<const char*, uint16_t>();
  uint16_t id;
  {
    std::lock_guard<std::mutex> lock(g_label_mutex);
    auto it = cache->find(label);
    id = it != cache->end() ? it->second : 0;
  }
  if (id == 0) {
    id = intern_label(label);
    std::lock_guard<std::mutex> lock(g_label_mutex);
    (*cache)[label] = id;
  }
  note_write(written, id);
}

void note_write(const Tensor& written, uint16_t label) {
  if (!write_is_recorded(written)) return;
  if (t_label_override != 0) label = t_label_override;
  // `t[i] = v` writes through an internal view of t: report it as a write of t.
  Tensor writer = t_writer_is_base && is_view(written) ? view_base(written) : written;
  const uint32_t location = current_location();
  silent_writes::note_write(*written->storage(), label, location, write_via(writer));
  if (!Provenance::enabled()) return;
  VersionCounter& vc = *written->version_counter();
  if (!vc.log) vc.log = std::make_unique<WriteLog>();
  WriteLog& log = *vc.log;
  WriteRecord& r = log.ring[log.total % WriteLog::kSize];
  r.version = written->version();
  r.location = location;
  r.writer = writer.get();
  r.label = label;
  r.via = write_via(writer);
  ++log.total;
}

}  // namespace gradtrack::autograd

namespace gradtrack::autograd {

std::string version_error_note(const Tensor& saved, const Node& owner, uint32_t expected) {
  std::string text = "It was saved by " + owner.name();
  if (owner.location) text += " for the call at " + describe_location(owner.location);
  // The writes since the save, in order; versions with no record (ring
  // overflow, or provenance was off) are told as such, where they happened.
  std::vector<const WriteRecord*> by_version;
  const WriteLog* log = saved->version_counter()->log.get();
  const uint32_t current = saved->version();
  if (log) {
    uint32_t n = log->total < WriteLog::kSize ? log->total : WriteLog::kSize;
    for (uint32_t i = 0; i < n; ++i) {
      const WriteRecord& r = log->ring[(log->total - n + i) % WriteLog::kSize];
      if (r.version > expected && r.version <= current) by_version.push_back(&r);
    }
  }
  bool first = true;
  uint32_t next = expected + 1;
  auto unrecorded = [&](uint32_t count) {
    if (count == 0) return;
    text += first ? ", then changed in place " + std::to_string(count) +
                        (count == 1 ? " time" : " times") + " (not recorded)"
                  : ", then " + std::to_string(count) + (count == 1 ? " write" : " writes") +
                        " not recorded";
    first = false;
  };
  const void* self = saved.get();
  for (const WriteRecord* r : by_version) {
    unrecorded(r->version - next);
    text += first ? ", then changed in place by " : ", then by ";
    first = false;
    text += label_name(r->label);
    if (r->writer != self) text += via_text(r->via);
    text += " at " + describe_location(r->location);
    next = r->version + 1;
  }
  unrecorded(current + 1 - next);
  return text + ".";
}

std::string freed_graph_note(const Node& node) {
  std::string text = "The saved tensors of " + node.name();
  if (node.location) text += " (built by the call at " + describe_location(node.location) + ")";
  text += " were freed by the backward";
  if (node.released_at) text += " called at " + describe_location(node.released_at);
  return text + "; pass retain_graph=True to that call to keep them.";
}

}  // namespace gradtrack::autograd
