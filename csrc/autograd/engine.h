// The backward engine: runs a graph from its roots to its leaves.
#pragma once

#include "autograd/node.h"

namespace gradtrack::autograd {

struct BackwardOptions {
  bool keep_graph = false;
  bool create_graph = false;
  /// Accumulate into leaves' .grad (backward) or only capture (autograd.grad).
  bool accumulate_grad = true;
};

/// Runs backward from `roots` (edges) seeded with `grads`. If `capture` is
/// non-empty, only the part of the graph leading to those edges runs, and
/// their gradients are returned in order (undefined where unreachable); with
/// accumulate_grad they are also written to the inputs' .grad.
TensorList run_backward(const std::vector<Edge>& roots, const TensorList& grads,
                        const BackwardOptions& options, const std::vector<Edge>& capture);

/// Hooks the Python layer installs: a warning for anomaly mode, and a check
/// for pending signals (Ctrl-C) between nodes.
extern void (*g_anomaly_warn)(const Node& node);
extern void (*g_check_interrupt)();

}  // namespace gradtrack::autograd
