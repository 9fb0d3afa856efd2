// Backward formulas of the round-2 tensor ops (issue 19); their rows are in
// the table in formulas.cpp, in the block marked for them.
#pragma once

#include "autograd/formulas.h"

namespace gradtrack::autograd::extra {

TensorList cumsum_bw(const BackwardCtx& c, const TensorList& g);
TensorList cumprod_bw(const BackwardCtx& c, const TensorList& g);
/// sort / topk: the gradient goes back to where each value was taken from.
TensorList value_select_bw(const BackwardCtx& c, const TensorList& g);
TensorList var_bw(const BackwardCtx& c, const TensorList& g);
TensorList std_bw(const BackwardCtx& c, const TensorList& g);
TensorList var_mean_bw(const BackwardCtx& c, const TensorList& g);
TensorList std_mean_bw(const BackwardCtx& c, const TensorList& g);
TensorList logsumexp_bw(const BackwardCtx& c, const TensorList& g);
TensorList tril_bw(const BackwardCtx& c, const TensorList& g);
TensorList triu_bw(const BackwardCtx& c, const TensorList& g);
TensorList flip_bw(const BackwardCtx& c, const TensorList& g);
TensorList roll_bw(const BackwardCtx& c, const TensorList& g);
TensorList repeat_bw(const BackwardCtx& c, const TensorList& g);
/// kthvalue / median(dim) / mode: like value_select_bw, the reduced dim put back.
TensorList value_reduce_bw(const BackwardCtx& c, const TensorList& g);
/// median(): the gradient shared evenly by the elements equal to the result.
TensorList median_all_bw(const BackwardCtx& c, const TensorList& g);
TensorList diagonal_bw(const BackwardCtx& c, const TensorList& g);
TensorList diagonal_backward_bw(const BackwardCtx& c, const TensorList& g);
TensorList trace_bw(const BackwardCtx& c, const TensorList& g);
TensorList nan_to_num_bw(const BackwardCtx& c, const TensorList& g);
TensorList lerp_scalar_bw(const BackwardCtx& c, const TensorList& g);
TensorList lerp_tensor_bw(const BackwardCtx& c, const TensorList& g);
TensorList vector_norm_bw(const BackwardCtx& c, const TensorList& g);
TensorList baddbmm_bw(const BackwardCtx& c, const TensorList& g);
TensorList addmv_bw(const BackwardCtx& c, const TensorList& g);
TensorList cross_bw(const BackwardCtx& c, const TensorList& g);

}  // namespace gradtrack::autograd::extra
