"""Cases for the optimizers (``optimizer``) and learning-rate schedulers (``optimizer.lr``).

Optimizers: the weight [4, 3] and bias [3] of a ``Linear`` with seeded values, three steps
with seeded gradients (the gradient of ``sum(w * g)``), learning rate 0.1 unless the
variant says otherwise; the parameters after each step, and the state_dict's keys (the
parameter names replaced by ``P0``, ``P1``) with their dtypes and shapes after the last.
``LBFGS`` is not covered (it needs a closure, and a linear loss has no minimum).

Schedulers: the learning rate at construction and after each of 8 ``step()`` calls
(``ReduceOnPlateau``: with the metrics of ``METRICS``), and the state_dict's keys.

A ``bad`` variant gives one invalid construction argument: the exception type.
"""

import numpy as np

from .classes import construct, find, framework_value, keys_spec, parts
from .values import array, rng_for

STEPS = 3
LR_STEPS = 8
METRICS = [1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6, 0.7]

CLIP = {"clip": 0.5}
STEP_DECAY = {"sched": "StepDecay", "kwargs": {"learning_rate": 0.1, "step_size": 2}}
OPTIMIZERS = {
    "SGD": [{}, {"weight_decay": 0.1}, {"grad_clip": CLIP}, {"learning_rate": STEP_DECAY}],
    "Momentum": [{}, {"use_nesterov": True}, {"weight_decay": 0.1}],
    "Adam": [{}, {"weight_decay": 0.1}, {"amsgrad": True}, {"grad_clip": CLIP},
             {"beta1": 0.5, "beta2": 0.9, "epsilon": 1e-6}, {"learning_rate": STEP_DECAY}],
    "AdamW": [{}, {"weight_decay": 0.1}, {"amsgrad": True}],
    "Adamax": [{}], "Adagrad": [{}, {"initial_accumulator_value": 0.1}],
    "Adadelta": [{}, {"rho": 0.9}], "RMSProp": [{}, {"centered": True, "momentum": 0.5}],
    "Lamb": [{}, {"lamb_weight_decay": 0.1}], "NAdam": [{}], "RAdam": [{}],
    "ASGD": [{}, {"batch_num": 2}], "Rprop": [{}],
}
BAD_OPTIMIZERS = {"Adam": {"beta1": 1.5}, "AdamW": {"beta2": -0.5},
                  "SGD": {"learning_rate": "abc"}, "RMSProp": {"rho": None},
                  "Adadelta": {"epsilon": None}, "Momentum": {"momentum": None},
                  "Adamax": {"beta1": -1.0}, "Lamb": {"beta1": 2.0}}

SCHEDULERS = {
    "NoamDecay": [{"d_model": 16, "warmup_steps": 3, "learning_rate": 1.0}],
    "PiecewiseDecay": [{"boundaries": [2, 5], "values": [1.0, 0.5, 0.1]}],
    "NaturalExpDecay": [{"learning_rate": 0.5, "gamma": 0.1}],
    "InverseTimeDecay": [{"learning_rate": 0.5, "gamma": 0.1}],
    "PolynomialDecay": [{"learning_rate": 0.5, "decay_steps": 5, "end_lr": 0.01},
                        {"learning_rate": 0.5, "decay_steps": 3, "end_lr": 0.01,
                         "power": 2.0, "cycle": True}],
    "LinearWarmup": [{"learning_rate": 0.5, "warmup_steps": 3, "start_lr": 0.0,
                      "end_lr": 0.5}],
    "ExponentialDecay": [{"learning_rate": 0.5, "gamma": 0.9}],
    "MultiStepDecay": [{"learning_rate": 0.5, "milestones": [2, 5], "gamma": 0.1}],
    "StepDecay": [{"learning_rate": 0.5, "step_size": 3, "gamma": 0.1}],
    "LambdaDecay": [{"learning_rate": 0.5, "lr_lambda": {"fn": "pow95"}}],
    "MultiplicativeDecay": [{"learning_rate": 0.5, "lr_lambda": {"fn": "const95"}}],
    "ReduceOnPlateau": [{"learning_rate": 0.5, "patience": 1, "factor": 0.5},
                        {"learning_rate": 0.5, "mode": "max", "threshold_mode": "abs",
                         "cooldown": 1, "patience": 0, "factor": 0.5}],
    "CosineAnnealingDecay": [{"learning_rate": 0.5, "T_max": 4, "eta_min": 0.01}],
    "OneCycleLR": [{"max_learning_rate": 1.0, "total_steps": 10},
                   {"max_learning_rate": 1.0, "total_steps": 10,
                    "anneal_strategy": "linear", "three_phase": True}],
    "CyclicLR": [{"base_learning_rate": 0.1, "max_learning_rate": 1.0, "step_size_up": 2},
                 {"base_learning_rate": 0.1, "max_learning_rate": 1.0, "step_size_up": 2,
                  "mode": "triangular2"},
                 {"base_learning_rate": 0.1, "max_learning_rate": 1.0, "step_size_up": 2,
                  "mode": "exp_range", "exp_gamma": 0.9}],
    "LinearLR": [{"learning_rate": 0.5, "total_steps": 5, "start_factor": 0.25,
                  "end_factor": 1.0}],
    "CosineAnnealingWarmRestarts": [{"learning_rate": 0.5, "T_0": 3, "T_mult": 2,
                                     "eta_min": 0.01}],
}
BAD_SCHEDULERS = {"StepDecay": {"learning_rate": 0.5, "step_size": "a"},
                  "CyclicLR": {"base_learning_rate": 0.1, "max_learning_rate": 1.0,
                               "step_size_up": 2, "mode": "abc"},
                  "ReduceOnPlateau": {"learning_rate": 0.5, "factor": 1.5},
                  "OneCycleLR": {"max_learning_rate": 1.0, "total_steps": 0},
                  "LinearLR": {"learning_rate": 0.5, "total_steps": 5, "start_factor": 2.0},
                  "CosineAnnealingWarmRestarts": {"learning_rate": 0.5, "T_0": 0},
                  "MultiStepDecay": {"learning_rate": 0.5, "milestones": [5, 2]},
                  "PiecewiseDecay": {"boundaries": [2, 5], "values": [1.0]}}


def label(kwargs):
    """A variant's label from its arguments.

    >>> label({}), label({"weight_decay": 0.1, "grad_clip": CLIP})
    ('default', 'weight_decay=0.1,grad_clip=ClipGradByGlobalNorm')
    """
    if not kwargs:
        return "default"
    names = {"clip": "ClipGradByGlobalNorm"}
    out = []
    for k, v in kwargs.items():
        if isinstance(v, dict):
            v = v.get("sched") or names[next(iter(v))]
        out.append(f"{k}={v}")
    return ",".join(out)


def _spec(value):
    if isinstance(value, dict) and ("clip" in value or "sched" in value):
        return {"py": value}
    if isinstance(value, dict) and "fn" in value:
        return value
    return {"py": value}


def optimizer_cases():
    """The optimizer cases (the same in either framework)."""
    out = []
    for name, variants in OPTIMIZERS.items():
        items = [(label(kwargs), kwargs) for kwargs in variants]
        if name in BAD_OPTIMIZERS:
            items.append(("bad", BAD_OPTIMIZERS[name]))
        for tag, kwargs in items:
            case_id = f"optimizer.{name}:c:{tag}"
            rng = rng_for(case_id)
            shapes = [(4, 3), (3,)] * (STEPS + 1)
            args = [{"tensor": array(rng, s, "float32")} for s in shapes]
            kwargs = dict({"learning_rate": 0.1}, **kwargs)
            out.append({"id": case_id, "name": name, "kind": "optimizer", "args": args,
                        "kwargs": {k: _spec(v) for k, v in kwargs.items()}})
    return out


def lr_cases():
    """The scheduler cases."""
    out = []
    for name, variants in SCHEDULERS.items():
        labels = ["default"] + [f"variant{i}" for i in range(1, len(variants))]
        items = list(zip(labels, variants))
        if name in BAD_SCHEDULERS:
            items.append(("bad", BAD_SCHEDULERS[name]))
        for tag, kwargs in items:
            case = {"id": f"optimizer.lr.{name}:c:{tag}", "name": name, "kind": "lr",
                    "args": [], "kwargs": {k: _spec(v) for k, v in kwargs.items()}}
            if name == "ReduceOnPlateau":
                case["metrics"] = METRICS
            out.append(case)
    return out


def _argument(spec, fw):
    value = spec.get("py")
    if isinstance(value, dict) and "clip" in value:
        return fw.nn.ClipGradByGlobalNorm(value["clip"])
    if isinstance(value, dict) and "sched" in value:
        return getattr(fw.optimizer.lr, value["sched"])(**value["kwargs"])
    return framework_value(spec, fw)


def run_optimizer(case, fw):
    """Three steps of the optimizer on a Linear's parameters with fixed gradients."""
    cls = find(fw.optimizer, case["name"])
    arrays = [spec["tensor"] for spec in case["args"]]
    layer = fw.nn.Linear(4, 3)
    params = [layer.weight, layer.bias]
    for param, value in zip(params, arrays[:2]):
        param.set_value(value)
    kwargs = {k: _argument(v, fw) for k, v in case["kwargs"].items()}
    opt = cls(parameters=params, **kwargs)
    scheduler = kwargs.get("learning_rate")
    answer = {}
    for step in range(1, STEPS + 1):
        gw, gb = arrays[2 * step], arrays[2 * step + 1]
        loss = (params[0] * fw.to_tensor(gw)).sum() + (params[1] * fw.to_tensor(gb)).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
        if isinstance(scheduler, fw.optimizer.lr.LRScheduler):
            scheduler.step()
        answer[f"step_{step}"] = {"seq": [{"tensor": np.asarray(p.numpy())} for p in params]}
    names = {p.name: f"P{i}" for i, p in enumerate(params)}

    def rename(key):
        for name, short in names.items():
            key = key.replace(name, short)
        return key

    answer["state"] = keys_spec(opt.state_dict(), fw, rename)
    return parts(**answer)


def run_lr(case, fw):
    """The learning rates over 8 steps of a scheduler, and its state_dict's keys."""
    cls = find(fw.optimizer.lr, case["name"])
    scheduler = construct(cls, case, fw)
    rates = [float(scheduler())]
    for step in range(LR_STEPS):
        if "metrics" in case:
            scheduler.step(case["metrics"][step])
        else:
            scheduler.step()
        rates.append(float(scheduler()))
    return parts(rates={"tensor": np.array(rates, dtype="float64")},
                 state=keys_spec(scheduler.state_dict(), fw))
