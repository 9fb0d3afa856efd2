// Thread-local grad mode and the debugging switches of the engine.
#pragma once

namespace gradtrack::autograd {

/// Whether new results record history (torch.is_grad_enabled); per thread.
struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

/// Sets grad mode for a scope and restores the previous mode on exit.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

/// Inference mode is tracked separately so views made inside it get the
/// matching error text; otherwise it behaves as no_grad (documented).
struct InferenceMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

/// Anomaly detection (process-wide, like PyTorch's).
struct AnomalyMode {
  static bool is_enabled();
  static bool check_nan();
  static void set(bool enabled, bool check_nan);
};

}  // namespace gradtrack::autograd
