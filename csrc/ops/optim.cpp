// Optimizer steps: the entry that writes a parameter without recording it
// (the step runs under no_grad), bumps its version and notes the write.
#include "autograd/provenance.h"
#include "ops/common.h"

namespace gradtrack::ops {

void sgd_update(const Tensor& p, const Tensor& grad, const Tensor* buf, double lr, double momentum,
                double dampening, double weight_decay, bool nesterov, bool maximize,
                bool first_step) {
  const kernels::SgdParams h{lr, momentum, dampening, weight_decay, nesterov, maximize, first_step};
  if (kernels::sgd_fusable(p, grad, buf)) {
    kernels::sgd_step(p, grad, buf, h);
  } else {
    // Other layouts or dtypes: the same math with separate kernels.
    Tensor g = maximize ? neg(grad) : grad;
    if (weight_decay != 0) g = add(g, p, Scalar(weight_decay));
    if (buf) {
      if (first_step) {
        kernels::copy(*buf, g);
      } else {
        kernels::binary_scalar(kernels::BinaryOp::Mul, *buf, *buf, Scalar(momentum), 1, false);
        kernels::binary(kernels::BinaryOp::Add, *buf, *buf, cast_for_kernel(g, buf->dtype()),
                        Scalar(1 - dampening));
      }
      g = nesterov ? add(g, *buf, Scalar(momentum)) : *buf;
    }
    kernels::binary(kernels::BinaryOp::Sub, p, p, cast_for_kernel(g, p.dtype()), Scalar(lr));
  }
  p->bump_version();
  autograd::note_write(p, "SGD.step");
  if (buf) (*buf)->bump_version();
}

}  // namespace gradtrack::ops
