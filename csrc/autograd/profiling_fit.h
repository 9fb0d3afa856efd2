// Where a backward node's gradients are fitted to its inputs while a profile is open.
#pragma once

#include "autograd/profiling.h"

namespace gradtrack::autograd::profiling {

// NOTE [Fitting gradients in the engine's event]
// A formula node sums a broadcast gradient down to its input (a bias's) in
// FormulaNode::finish; torch does it in the engine, after the node, so its profile shows
// that aten::sum inside `autograd::engine::evaluate_function: X` beside the node rather
// than inside it. While the engine runs a node for a profile it sets this flag, finish
// leaves the summing to the engine's fit_gradients (which does the same), and the events
// nest as torch's. Only on the engine's thread and only while a profile is open.
extern thread_local bool t_engine_fits;
inline bool engine_fits() { return active() && t_engine_fits; }

}  // namespace gradtrack::autograd::profiling
