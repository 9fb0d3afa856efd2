#include "autograd/saved_tensor.h"

#include "autograd/grad_mode.h"
#include "autograd/provenance.h"
#include "autograd/variable.h"

namespace gradtrack::autograd {

SavedTensor::SavedTensor(const Tensor& t, bool is_output, bool inplace_on_view)
    : is_output_(is_output) {
  if (!t.defined()) return;
  version_ = t->version();
  requires_grad_ = requires_grad(t);
  if (is_output) {
    output_nr_ = output_nr(t);
    if (inplace_on_view) view_fn_ = grad_fn(t);
  } else {
    had_grad_fn_ = grad_fn(t) != nullptr;
  }
  if (const SavedTensorHooks* hooks = saved_hooks::top()) {
    pack_with(*hooks, t);
    return;
  }
  if (silent_writes::enabled()) region_ = silent_writes::watch(t);
  // Output: keep an alias sharing storage and counter, minus the history.
  data_ = is_output ? alias_with_geometry(t, t.sizes(), t.strides(), t->offset()) : t;
}

void SavedTensor::pack_with(const SavedTensorHooks& hooks, const Tensor& t) {
  if (!is_output_) {
    history_ = grad_fn(t);
    output_nr_ = output_nr(t);
    if (!history_ && requires_grad_) history_ = grad_accumulator(t);
  }
  {
    AutoGradMode no_grad(false);  // PyTorch packs with grad mode off
    packed_ = hooks.pack(t);
  }
  if (t->version() != version_) {
    packed_.reset();
    throw Error(
        "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
        "pack hook cannot be modified by in-place operations as this can lead to unexpected "
        "side-effects. Please open an issue if you need to perform in-place operations on the "
        "input to a pack hook.");
  }
}

Tensor SavedTensor::unpack_packed(const std::shared_ptr<Node>& owner, bool attach_always) const {
  // What the unpack hook returns is what backward computes with; the graph
  // position (the input's history, or the owner for an output) is re-attached
  // to an alias of it, as PyTorch builds a new variable around the data.
  Tensor data = packed_->unpack();
  Tensor t = alias_with_geometry(data, data.sizes(), data.strides(), data->offset());
  if (!requires_grad_ || !(attach_always || GradMode::is_enabled())) return t;
  std::shared_ptr<Node> fn = is_output_ ? view_fn_.lock() : history_;
  if (is_output_ && !fn) fn = owner;
  if (!fn) return t;
  auto& m = materialize_meta(t);
  if (fn->is_accumulate_grad()) {
    // A leaf input: a leaf that shares the original's accumulator.
    m.requires_grad = true;
    m.grad_accumulator = fn;
    return t;
  }
  m.grad_fn = fn;
  m.output_nr = output_nr_;
  m.saw_grad_fn = true;
  return t;
}

std::string second_backward_message() {
  return "Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed). Saved intermediate values of the graph are freed "
         "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
         "backward through the graph a second time or if you need to access saved tensors after "
         "calling backward.";
}

namespace {

std::string version_message(const Tensor& t, const std::shared_ptr<Node>& producer, uint32_t out_nr,
                            uint32_t current, uint32_t expected) {
  std::string clause;
  if (producer) {
    clause = str_cat(", which is output ", out_nr, " of ", forward_op_name(producer->name()), ",");
  }
  std::string hint =
      AnomalyMode::is_enabled()
          ? "Hint: the backtrace further above shows the operation that failed to compute its "
            "gradient. The variable in question was changed in there or anywhere later. Good luck!"
          : str_cat(
                "Hint: enable anomaly detection to find the operation that failed to compute "
                "its gradient, with ",
                kModule, ".autograd.set_detect_anomaly(True, check_nan=False).");
  return str_cat(
      "one of the variables needed for gradient computation has been modified by an "
      "inplace operation: [",
      legacy_type_name(t.dtype(), kModule), " ", shape_str(t.sizes()), "]", clause,
      " is at version ", current, "; expected version ", expected, " instead. ", hint);
}

}  // namespace

Tensor SavedTensor::unpack(const std::shared_ptr<Node>& owner, bool attach_always) const {
  if (released_) {
    throw Error(second_backward_message(), Provenance::enabled() ? freed_graph_note(*owner) : "");
  }
  if (packed_) return unpack_packed(owner, attach_always);
  if (!data_.defined()) return Tensor();
  std::shared_ptr<Node> producer;
  uint32_t out_nr = 0;
  if (is_output_) {
    producer = view_fn_.lock();
    if (!producer) producer = owner;
    out_nr = output_nr_;
  } else {
    producer = grad_fn(data_);
    out_nr = output_nr(data_);
    if (had_grad_fn_ && !producer) {
      throw Error(
          "Trying to use a saved tensor that has been detached in-place, i.e. with "
          ".detach_().This is not supported, please use out-of-place `.detach()` instead");
    }
  }
  uint32_t current = data_->version();
  if (current != version_) {
    std::string note = Provenance::enabled() ? version_error_note(data_, *owner, version_) : "";
    throw Error(version_message(data_, producer, out_nr, current, version_), note);
  }
  if (is_output_ && requires_grad_ && (attach_always || GradMode::is_enabled())) {
    // Double backward needs the output to carry its node again.
    Tensor t = alias_with_geometry(data_, data_.sizes(), data_.strides(), data_->offset());
    auto& m = materialize_meta(t);
    m.grad_fn = producer;
    m.output_nr = output_nr_;
    m.saw_grad_fn = true;
    return t;
  }
  return data_;
}

}  // namespace gradtrack::autograd

namespace gradtrack::autograd {

namespace {

enum class SilentChange { None, Changed, Replaced };

SilentChange silent_change_of(const Tensor& now, silent_writes::SavedRegion& region) {
  const bool same_memory = now->storage() == region.storage && now->offset() == region.offset &&
                           now.sizes() == region.sizes && now.strides() == region.strides &&
                           now.dtype() == region.dtype;
  if (!same_memory) {
    // `x.data = y` under a saved input: what backward would read is y's memory.
    const uint64_t saved = silent_writes::saved_fingerprint(region);
    const bool same_bytes = now.dtype() == region.dtype && now.sizes() == region.sizes &&
                            silent_writes::fingerprint(now) == saved;
    return same_bytes ? SilentChange::None : SilentChange::Replaced;
  }
  // A memory no alias ever reached has no fingerprint: only its counter could
  // have written it, and the version check sees that.
  if (!region.printed.load(std::memory_order_acquire)) return SilentChange::None;
  return silent_writes::fingerprint(now) == region.print ? SilentChange::None
                                                         : SilentChange::Changed;
}

std::string alias_names(uint8_t aliases) {
  std::vector<std::string> names;
  if (aliases & silent_writes::kNumpy) names.push_back("numpy()");
  if (aliases & silent_writes::kFromNumpy) names.push_back("from_numpy");
  if (aliases & silent_writes::kDlpack) names.push_back("__dlpack__");
  if (aliases & silent_writes::kData) names.push_back(".data");
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

// What the note says of the writes since the save: gradtrack's, named, or
// that the memory changed outside gradtrack.
std::string writes_story(const silent_writes::SavedRegion& region, SilentChange kind) {
  std::string text;
  bool replaced_told = false;
  for (const silent_writes::WriteNote& w :
       silent_writes::writes_since(*region.storage, region.writes_at_save)) {
    const std::string at = w.location ? " at " + describe_location(w.location) : "";
    if (label_name(w.label) == ".data =") {
      text += " Then its .data was replaced" + at +
              " (`t.data = other`): backward would read the other tensor's values.";
      replaced_told = true;
    } else {
      text += str_cat(" Then written by ", label_name(w.label), via_text(w.via), at, ".");
    }
  }
  if (kind == SilentChange::Replaced && !replaced_told)
    return text +
           " Then its .data was replaced (`t.data = other`): backward would read the other "
           "tensor's values.";
  if (!text.empty()) return text;
  const std::string aliases = alias_names(silent_writes::aliases_of(*region.storage));
  return str_cat(" The memory changed outside gradtrack", aliases.empty() ? "" : ": it is shared",
                 aliases.empty() ? "" : " through " + aliases,
                 " (a NumPy array or a DLPack consumer writes it without a version bump).");
}

}  // namespace

std::string SavedTensor::silent_change() const {
  if (!region_ || released_ || !data_.defined() || data_->version() != version_) return "";
  const SilentChange kind = silent_change_of(data_, *region_);
  if (kind == SilentChange::None) return "";
  // The last write explain() can name: "changed by mul_ through .data at t.py:14".
  const auto writes = silent_writes::writes_since(*region_->storage, region_->writes_at_save);
  if (!writes.empty()) {
    const silent_writes::WriteNote& w = writes.back();
    const std::string at = w.location ? " at " + describe_location(w.location) : "";
    if (label_name(w.label) == ".data =") return "its .data replaced" + at;
    return str_cat("changed by ", label_name(w.label), via_text(w.via), at);
  }
  if (kind == SilentChange::Replaced) return "its .data replaced";
  const std::string aliases = alias_names(silent_writes::aliases_of(*region_->storage));
  return "changed outside gradtrack" + (aliases.empty() ? "" : " (shared through " + aliases + ")");
}

void SavedTensor::check_silent(const Node& owner) const {
  if (!region_ || released_ || !data_.defined() || data_->version() != version_) return;
  const SilentChange kind = silent_change_of(data_, *region_);
  if (kind == SilentChange::None) return;
  const std::string what =
      kind == SilentChange::Replaced
          ? "now reads other memory than the one it was saved with (its .data was replaced)"
          : str_cat("is still at version ", version_, " but its memory changed after it was saved");
  std::string note = "It was saved by " + owner.name();
  if (owner.location) note += " for the call at " + describe_location(owner.location);
  note += "." + writes_story(*region_, kind);
  throw Error(
      str_cat("one of the variables needed for gradient computation has been modified without its "
              "version counter seeing it: [",
              legacy_type_name(data_.dtype(), kModule), " ", shape_str(data_.sizes()), "] ", what,
              ", so backward would compute a wrong gradient with no error. "
              "gradtrack.autograd.detect_silent_writes caught it; nothing was accumulated."),
      note);
}

}  // namespace gradtrack::autograd
