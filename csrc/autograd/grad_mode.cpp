#include "autograd/grad_mode.h"

namespace gradtrack::autograd {

namespace {
thread_local bool t_grad_enabled = true;
thread_local bool t_inference = false;
bool g_anomaly = false;
bool g_anomaly_nan = true;
}  // namespace

bool GradMode::is_enabled() { return t_grad_enabled; }
void GradMode::set_enabled(bool enabled) { t_grad_enabled = enabled; }
bool InferenceMode::is_enabled() { return t_inference; }
void InferenceMode::set_enabled(bool enabled) { t_inference = enabled; }
bool AnomalyMode::is_enabled() { return g_anomaly; }
bool AnomalyMode::check_nan() { return g_anomaly_nan; }
void AnomalyMode::set(bool enabled, bool check_nan) {
  g_anomaly = enabled;
  g_anomaly_nan = check_nan;
}

}  // namespace gradtrack::autograd
