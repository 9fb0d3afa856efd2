"""Function transforms: per-sample gradients of a small MLP with
``vmap(grad(loss), in_dims=(None, 0, 0))``, torch.func's tutorial idiom.
"""

from .registry import Point, seed, timed_case

GROUP_FUNC = "function transforms"


@timed_case("per_sample_grads", GROUP_FUNC,
            "vmap(grad(loss))(params, x, y): per-sample gradients",
            (Point("b64", 64, "MLP 32-64-10, batch 64, cross entropy, functional_call"),))
def per_sample_grads(T, batch):
    seed(T)
    nn = T.nn
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = T.randn(batch, 32)
    y = T.randint(0, 10, (batch,))
    functional_call, cross_entropy = T.func.functional_call, nn.functional.cross_entropy

    def loss(p, xi, yi):
        return cross_entropy(functional_call(model, p, (xi.unsqueeze(0),)), yi.unsqueeze(0))

    per_sample = T.func.vmap(T.func.grad(loss), in_dims=(None, 0, 0))

    def step():
        per_sample(params, x, y)

    return step
