"""The paddle.distribution cases replayed against Paddle 3.3's recorded results.

tools/record_distribution_refs.py runs every case through Paddle and writes
tests/data/distribution_refs.json; test_paddle_parity.py runs them through DyGraph and
compares. A case builds one distribution or transform from a spec and makes a list of
calls on it. This module imports only NumPy, so the recorder can use it in Paddle's
environment.

Specs are JSON values: T(...) a Tensor, NP(...) a NumPy array, C(...) a Python complex,
D(...)/TR(...) a distribution/transform (nested freely), TUP(...) a tuple.
"""

import numpy as np


def T(data, dtype="float32"):
    """A Tensor spec; complex dtypes take `data` as (real, imaginary) lists."""
    return {"t": data, "dtype": dtype}


def NP(data, dtype="float64"):
    """A NumPy array spec."""
    return {"np": data, "dtype": dtype}


def C(re, im):
    """A Python complex spec."""
    return {"c": [re, im]}


def D(name, *args, **kwargs):
    """A distribution spec: paddle.distribution.<name>(*args, **kwargs)."""
    return {"D": name, "args": list(args), "kwargs": kwargs}


def TR(name, *args, **kwargs):
    """A transform spec: paddle.distribution.<name>(*args, **kwargs)."""
    return {"TR": name, "args": list(args), "kwargs": kwargs}


def TUP(*items):
    """A tuple spec."""
    return {"tuple": list(items)}


def _array(data, dtype):
    if dtype.startswith("complex"):
        return np.asarray(data[0], "float64") + 1j * np.asarray(data[1], "float64")
    return np.asarray(data)


def decode(spec, lib):
    """Build the object a spec describes with `lib` (paddle or dygraph)."""
    if isinstance(spec, list):
        return [decode(s, lib) for s in spec]
    if not isinstance(spec, dict):
        return spec
    if "t" in spec:
        return lib.to_tensor(_array(spec["t"], spec["dtype"]).astype(spec["dtype"]))
    if "np" in spec:
        return _array(spec["np"], spec["dtype"]).astype(spec["dtype"])
    if "c" in spec:
        return complex(*spec["c"])
    if "tuple" in spec:
        return tuple(decode(s, lib) for s in spec["tuple"])
    name = spec.get("D") or spec.get("TR")
    args = [decode(a, lib) for a in spec["args"]]
    kwargs = {k: decode(v, lib) for k, v in spec["kwargs"].items()}
    return getattr(lib.distribution, name)(*args, **kwargs)


def encode_result(value):
    """A JSON form of a call's result: Tensors by values, dtype and shape."""
    if isinstance(value, (tuple, list)) and value and not isinstance(value[0], int):
        return {"items": [encode_result(v) for v in value]}
    if isinstance(value, (tuple, list)):
        return {"shape_value": [int(v) for v in value]}
    if isinstance(value, (int, float)):
        return {"float": float(value)}
    array = np.asarray(value.numpy())
    out = {"dtype": array.dtype.name, "shape": list(array.shape)}
    if array.dtype.kind == "c":
        out["re"], out["im"] = array.real.tolist(), array.imag.tolist()
    else:
        out["value"] = array.astype("float64").tolist()
    return out


def run_call(obj, call, lib):
    """Make one call (a list: kind, then arguments) on `obj`; the encoded result."""
    kind, *args = call
    try:
        if kind == "attr":
            result = getattr(obj, args[0])
        elif kind == "kl":
            result = lib.distribution.kl_divergence(obj, decode(args[0], lib))
        elif kind == "draw":  # only the shape and dtype of random draws are compared
            drawn = getattr(obj, args[0])(*[decode(a, lib) for a in args[1:]])
            array = np.asarray(drawn.numpy())
            return {"draw_shape": list(array.shape), "dtype": array.dtype.name}
        else:
            result = getattr(obj, args[0])(*[decode(a, lib) for a in args[1:]])
        return encode_result(result)
    except Exception as error:  # the type of the exception is part of the behaviour
        return {"error": type(error).__name__}


def run_case(case, lib):
    """All calls of a case; {"build_error": ...} when the constructor raises."""
    try:
        obj = decode(case["make"], lib)
    except Exception as error:
        return {"build_error": type(error).__name__}
    return {"calls": [run_call(obj, call, lib) for call in case["calls"]]}


# -- the cases ---------------------------------------------------------------------------
def attrs(*names):
    return [["attr", n] for n in names]


def calls(method, *values):
    return [["call", method, v] for v in values]


def draws(*shapes, methods=("sample", "rsample")):
    return [["draw", m, list(s)] for m in methods for s in shapes]


SHAPES = attrs("batch_shape", "event_shape")
MOMENTS = attrs("mean", "variance")
X3 = T([0.5, 1.5, 3.0])


def _case(case_id, make, *groups):
    return {"id": case_id, "make": make, "calls": [c for g in groups for c in g]}


def _continuous_cases():
    return [
        _case("normal_floats", D("Normal", 0.5, 2.0), SHAPES, MOMENTS,
              [["call", "entropy"]], calls("log_prob", T([1.0, -2.0, 3.0]), T(0.25)),
              calls("probs", T([1.0, -2.0])), calls("prob", T([1.0, -2.0])),
              [["kl", D("Normal", 1.0, 1.5)], ["call", "kl_divergence", D("Normal", 1.0, 1.5)]],
              draws([3], [], [2, 3])),
        _case("normal_batch", D("Normal", T([0.0, 1.0, -1.0]), T([1.0, 2.0, 0.5])), SHAPES,
              MOMENTS, [["call", "entropy"]],
              calls("log_prob", T([[0.1, 0.2, 0.3], [1.0, 2.0, 3.0]]), T([0.5, 0.5, 0.5],
                                                                         "float64")),
              [["kl", D("Normal", T([1.0, 1.0, 1.0]), T([1.0, 3.0, 1.0]))]], draws([4], [2, 1])),
        _case("normal_float64", D("Normal", T([0.0, 1.0], "float64"), T([1.0, 2.0], "float64")),
              MOMENTS, [["call", "entropy"]], calls("log_prob", T([0.3, 0.7], "float64")),
              draws([2])),
        _case("normal_list", D("Normal", [0.0, 1.0], 2.0), SHAPES, calls("log_prob", T(0.5)),
              draws([3])),
        _case("normal_numpy64", D("Normal", NP([0.0, 1.0]), NP([1.0, 2.0])), MOMENTS,
              calls("log_prob", T([0.5, 0.5], "float64")), draws([3])),
        _case("normal_int", D("Normal", 1, 2), MOMENTS),
        _case("normal_mixed", D("Normal", T(0.0), 1.0)),
        _case("normal_complex", D("Normal", C(1.0, 1.0), 2.0), MOMENTS, [["call", "entropy"]],
              calls("log_prob", T([[1.0, 0.0], [2.0, -1.0]], "complex64")),
              calls("probs", T([[1.0], [2.0]], "complex64")),
              [["kl", D("Normal", C(0.0, 0.0), 1.0)], ["kl", D("Normal", 0.0, 1.0)]],
              draws([3], [])),
        _case("normal_complex_tensor", D("Normal", T([[1.0, 0.0], [1.0, 2.0]], "complex64"),
                                         T([1.0, 0.5])), [["call", "entropy"]], draws([2])),
        _case("uniform_floats", D("Uniform", 0.0, 2.0), SHAPES, [["call", "entropy"]],
              calls("log_prob", T([1.0, 3.0, -1.0, 0.0])), calls("probs", T([1.0, 3.0])),
              calls("prob", T([1.0, 3.0])), draws([2], [], methods=("sample",))),
        _case("uniform_batch", D("Uniform", T([0.0, 1.0]), T([2.0, 5.0])), SHAPES,
              [["call", "entropy"]], calls("log_prob", T([[1.0, 2.0], [3.0, 4.0]])),
              draws([3], methods=("sample",))),
        _case("lognormal", D("LogNormal", 0.5, 1.5), SHAPES, MOMENTS, [["call", "entropy"]],
              calls("log_prob", T([0.5, 2.0])), calls("prob", T([0.5, 2.0])),
              calls("probs", T([0.5])), [["kl", D("LogNormal", 0.0, 1.0)],
                                         ["call", "kl_divergence", D("LogNormal", 0.0, 1.0)]],
              draws([3], [])),
        _case("lognormal_batch", D("LogNormal", T([0.0, 1.0]), T([1.0, 0.5])), SHAPES, MOMENTS,
              [["call", "entropy"]], calls("log_prob", T([1.5, 0.5])), draws([3])),
        _case("beta", D("Beta", 2.0, 3.0), SHAPES, MOMENTS, [["call", "entropy"]],
              calls("log_prob", T(0.3), T([0.2, 0.7])), calls("prob", T([0.2, 0.7])),
              [["kl", D("Beta", 1.0, 1.5)]], draws([3], [1], [], methods=("sample",))),
        _case("beta_batch", D("Beta", T([1.0, 2.0]), T([3.0, 0.5])), SHAPES, MOMENTS,
              [["call", "entropy"]], calls("log_prob", T([0.2, 0.7])),
              [["kl", D("Beta", T([2.0, 2.0]), T([2.0, 1.0]))]], draws([3], methods=("sample",))),
        _case("dirichlet", D("Dirichlet", T([1.0, 2.0, 3.0])), SHAPES, MOMENTS,
              [["call", "entropy"]], calls("log_prob", T([0.2, 0.3, 0.5])),
              calls("prob", T([0.2, 0.3, 0.5])), [["kl", D("Dirichlet", T([1.0, 1.0, 1.0]))]],
              draws([4], methods=("sample",))),
        _case("dirichlet_batch", D("Dirichlet", T([[1.0, 2.0], [3.0, 4.0]], "float64")), SHAPES,
              MOMENTS, [["call", "entropy"]], calls("log_prob", T([[0.4, 0.6], [0.1, 0.9]],
                                                                 "float64")),
              draws([2, 1], methods=("sample",))),
        _case("gamma", D("Gamma", T([2.0, 3.0]), T([1.0, 0.5])), SHAPES, MOMENTS,
              [["call", "entropy"]], calls("log_prob", T([1.0, 2.0])),
              calls("prob", T([1.0, 2.0])), [["kl", D("Gamma", T([1.0, 1.0]), T([2.0, 2.0]))],
                                              ["call", "kl_divergence",
                                               D("Gamma", T([1.0, 1.0]), T([2.0, 2.0]))]],
              draws([3], [])),
        _case("gamma_floats", D("Gamma", 2.0, 1.0), SHAPES, MOMENTS, [["call", "entropy"]],
              calls("log_prob", T(1.5)), draws([3])),
        _case("chi2", D("Chi2", T([2.0, 5.0])), SHAPES, MOMENTS, [["call", "entropy"]],
              calls("log_prob", T([1.0, 4.0])), [["kl", D("Chi2", T([3.0, 3.0]))]],
              draws([3])),
        _case("chi2_negative", D("Chi2", T([-1.0]))),
        _case("exponential", D("Exponential", T([1.0, 2.5])), SHAPES, MOMENTS,
              [["call", "entropy"]], calls("log_prob", T([0.5, 1.0])),
              calls("prob", T([0.5, 1.0])), calls("cdf", T([0.5, 1.0])),
              calls("icdf", T([0.3, 0.9])), [["kl", D("Exponential", T([2.0, 2.0]))]],
              draws([3], [])),
        _case("exponential_float", D("Exponential", 2.0), MOMENTS, calls("log_prob", T(0.5))),
        _case("laplace", D("Laplace", T([0.0, 1.0]), T([1.0, 2.0])), SHAPES, MOMENTS,
              attrs("stddev"), [["call", "entropy"]], calls("log_prob", T([0.5, -1.0]), 0.5),
              calls("prob", T([0.5, -1.0])), calls("cdf", T([0.5, -1.0])),
              calls("icdf", T([0.2, 0.7])), [["kl", D("Laplace", T([1.0, 1.0]),
                                                      T([1.0, 3.0]))]], draws([3], [])),
        _case("laplace_floats", D("Laplace", 0.0, 1.0), SHAPES, calls("log_prob", T(1.0)),
              calls("cdf", T(1.0)), draws([2])),
        _case("laplace_bad", D("Laplace", "a", 1.0)),
        _case("cauchy", D("Cauchy", T([0.0, 1.0]), T([1.0, 2.0])), SHAPES,
              attrs("mean", "variance", "stddev"), [["call", "entropy"]],
              calls("log_prob", T([0.5, -1.0])), calls("prob", T([0.5, -1.0])),
              calls("cdf", T([0.5, -1.0])), [["kl", D("Cauchy", T([1.0, 1.0]), T([1.0, 3.0]))]],
              draws([3], [])),
        _case("cauchy_floats", D("Cauchy", 0.0, 1.0), [["call", "entropy"]],
              calls("log_prob", T([0.5])), calls("log_prob", 0.5), draws([2])),
        _case("gumbel", D("Gumbel", T([0.0, 1.0]), T([1.0, 2.0])), SHAPES, MOMENTS,
              attrs("stddev"), [["call", "entropy"]], calls("log_prob", T([0.5, -1.0])),
              calls("prob", T([0.5, -1.0])), calls("cdf", T([0.5, -1.0])), draws([3], [])),
        _case("gumbel_floats", D("Gumbel", 0.0, 1.0), MOMENTS, calls("log_prob", T(0.5)),
              draws([2])),
        _case("student_t", D("StudentT", T([1.5, 3.0, 5.0]), T([0.0, 1.0, -1.0]),
                             T([1.0, 2.0, 0.5])), SHAPES, MOMENTS, [["call", "entropy"]],
              calls("log_prob", T([0.5, 2.0, -1.0])), calls("prob", T([0.5, 2.0, -1.0])),
              draws([3], [], methods=("sample",))),
        _case("student_t_floats", D("StudentT", 3.0, 0.0, 1.0), SHAPES, MOMENTS,
              calls("log_prob", T(0.5)), draws([2], methods=("sample",))),
        _case("student_t_broadcast", D("StudentT", 3.0, T([0.0, 1.0]), 1.0), SHAPES,
              calls("log_prob", T([0.5, 0.5]))),
        _case("student_t_negative", D("StudentT", T([-1.0]), T([0.0]), T([1.0]))),
        _case("continuous_bernoulli", D("ContinuousBernoulli", T([0.2, 0.4995, 0.5, 0.8])),
              SHAPES, MOMENTS, [["call", "entropy"]],
              calls("log_prob", T([0.1, 0.3, 0.5, 0.9])), calls("prob", T([0.1, 0.3, 0.5, 0.9])),
              calls("cdf", T([0.1, 0.3, 0.5, 0.9]), T([-1.0, 0.0, 1.0, 2.0])),
              calls("icdf", T([0.1, 0.5, 0.5, 0.9])),
              [["kl", D("ContinuousBernoulli", T([0.3, 0.6, 0.7, 0.1]))]], draws([3], [])),
        _case("continuous_bernoulli_float", D("ContinuousBernoulli", 0.3), SHAPES, MOMENTS,
              calls("log_prob", T([0.25]))),
    ]


def _discrete_cases():
    return [
        _case("categorical", D("Categorical", T([1.0, 2.0, 3.0])), [["call", "entropy"]],
              calls("probs", T([0, 2, 1], "int64"), T([[0, 2], [1, 1]], "int64")),
              calls("log_prob", T([0, 2, 1], "int64")), calls("prob", T([2], "int64")),
              [["kl", D("Categorical", T([1.0, 1.0, 3.0]))]], draws([4], [], [2, 3],
                                                                     methods=("sample",))),
        _case("categorical_batch", D("Categorical", T([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])),
              [["call", "entropy"]], calls("log_prob", T([0, 2], "int64")),
              calls("probs", T([[0, 2], [1, 1]], "int64")),
              [["call", "kl_divergence", D("Categorical", T([[1.0, 1.0, 3.0], [1.0, 2.0, 1.0]]))]],
              draws([4], [], methods=("sample",))),
        _case("categorical_numpy64", D("Categorical", NP([1.0, 2.0, 3.0])),
              [["attr", "logits"], ["call", "entropy"]], calls("log_prob", T([1], "int64"))),
        _case("bernoulli", D("Bernoulli", T([0.3, 0.9, 0.0])), SHAPES, MOMENTS,
              [["call", "entropy"]], calls("log_prob", T([1.0, 0.0, 1.0])),
              calls("prob", T([1.0, 0.0, 1.0])), calls("cdf", T([-1.0, 0.5, 2.0])),
              [["kl", D("Bernoulli", T([0.5, 0.2, 0.5]))]], draws([3], [])),
        _case("bernoulli_float", D("Bernoulli", 0.3), SHAPES, MOMENTS, [["call", "entropy"]],
              calls("log_prob", T(1.0)), draws([4])),
        _case("bernoulli_float64", D("Bernoulli", T([0.25, 0.5], "float64")), MOMENTS,
              calls("log_prob", T([1.0, 0.0], "float64")), draws([2])),
        _case("geometric", D("Geometric", T([0.3, 0.6])), SHAPES, MOMENTS, attrs("stddev"),
              [["call", "entropy"]], calls("pmf", T([2, 3], "int64"), 2),
              calls("log_pmf", T([2, 3], "int64"), 1), calls("cdf", T([1, 4], "int64"), 3),
              calls("pmf", 2.5), [["kl", D("Geometric", T([0.5, 0.5]))]], draws([3], []),
              calls("pmf", T([2.0, 3.0])), calls("log_pmf", T([0.0, 3.0])),
              calls("cdf", T([1.0, 4.0]))),
        _case("geometric_float", D("Geometric", 0.5), SHAPES, MOMENTS, calls("pmf", 2),
              draws([2])),
        _case("multinomial", D("Multinomial", 5, T([0.2, 0.3, 0.5])), SHAPES, MOMENTS,
              [["call", "entropy"]], calls("log_prob", T([1.0, 2.0, 2.0]),
                                           T([1, 2, 2], "int64")),
              calls("prob", T([[1.0, 2.0, 2.0], [0.0, 0.0, 5.0]])),
              draws([3], [], methods=("sample",))),
        _case("multinomial_batch", D("Multinomial", 3, T([[0.5, 0.5], [1.0, 9.0]])), SHAPES,
              MOMENTS, [["call", "entropy"]], calls("log_prob", T([[1.0, 2.0], [3.0, 0.0]])),
              draws([2], methods=("sample",))),
        _case("multinomial_zero_prob", D("Multinomial", 5, T([0.0, 0.4, 0.6])),
              calls("log_prob", T([0.0, 2.0, 3.0]))),
        _case("multinomial_bad_count", D("Multinomial", 0, T([0.5, 0.5]))),
        _case("binomial", D("Binomial", T([10, 20], "int64"), T([0.3, 0.6])), SHAPES, MOMENTS,
              [["call", "entropy"]], calls("log_prob", T([3.0, 15.0]), T([11.0, 0.0])),
              calls("prob", T([3.0, 15.0])),
              [["kl", D("Binomial", T([10, 20], "int64"), T([0.5, 0.5]))]],
              draws([3], [], methods=("sample",))),
        _case("binomial_floats", D("Binomial", 10, 0.3), SHAPES, MOMENTS, [["call", "entropy"]],
              calls("log_prob", T(4.0)), draws([2], methods=("sample",))),
        _case("poisson", D("Poisson", T([1.0, 4.0])), SHAPES, MOMENTS, [["call", "entropy"]],
              calls("log_prob", T([0.0, 3.0])), calls("prob", T([0.0, 3.0])),
              [["kl", D("Poisson", T([2.0, 2.0]))]], draws([3], [], methods=("sample",))),
        _case("poisson_float", D("Poisson", 2.0), SHAPES, [["call", "entropy"]],
              calls("log_prob", T([1.0])), [["kl", D("Poisson", T([2.0, 1.0]))]]),
    ]


_COV = T([[2.0, 0.5], [0.5, 1.0]])
_TRIL = T([[1.0, 0.0], [0.5, 2.0]])


def _structured_cases():
    corr = np.array([[1.0, 0.3, -0.2], [0.3, 1.0, 0.4], [-0.2, 0.4, 1.0]])
    chol = np.linalg.cholesky(corr).tolist()
    normal23 = D("Normal", T([[0.0, 1.0, 2.0], [-1.0, 0.5, 0.0]]),
                 T([[1.0, 2.0, 0.5], [1.0, 1.0, 3.0]]))
    return [
        _case("mvn_cov", D("MultivariateNormal", T([0.0, 1.0]), covariance_matrix=_COV),
              SHAPES, MOMENTS, [["call", "entropy"]],
              calls("log_prob", T([[0.5, 0.5], [1.0, -1.0]])), calls("prob", T([0.5, 0.5])),
              [["kl", D("MultivariateNormal", T([1.0, 0.0]), scale_tril=_TRIL)],
               ["call", "kl_divergence", D("MultivariateNormal", T([1.0, 0.0]),
                                           precision_matrix=_COV)]],
              draws([3], [])),
        _case("mvn_precision", D("MultivariateNormal", T([0.0, 1.0]), precision_matrix=_COV),
              MOMENTS, [["call", "entropy"]], calls("log_prob", T([0.5, 0.5]))),
        _case("mvn_tril_float64", D("MultivariateNormal", T([0.0, 1.0], "float64"),
                                    scale_tril=T([[1.0, 0.0], [0.5, 2.0]], "float64")),
              MOMENTS, [["call", "entropy"]], calls("log_prob", T([0.5, 0.5], "float64"))),
        _case("mvn_batch", D("MultivariateNormal", T([[0.0, 1.0], [1.0, 2.0], [2.0, 0.0]]),
                             covariance_matrix=_COV), SHAPES, MOMENTS, [["call", "entropy"]],
              calls("log_prob", T([0.5, 0.5]), T([[[0.5, 0.5]], [[1.0, 1.0]]])), draws([2])),
        _case("mvn_float_loc", D("MultivariateNormal", 1.0, covariance_matrix=T([[4.0]])),
              SHAPES, MOMENTS, calls("log_prob", T([2.0]))),
        _case("mvn_two_matrices", D("MultivariateNormal", T([0.0, 1.0]),
                                    covariance_matrix=_COV, scale_tril=_TRIL)),
        _case("lkj", D("LKJCholesky", 3, 2.0), SHAPES, calls("log_prob", T(chol)),
              draws([4], [], methods=("sample",))),
        _case("lkj_cvine", D("LKJCholesky", 3, 0.5, "cvine"), SHAPES,
              calls("log_prob", T(chol)), draws([4], [], methods=("sample",))),
        _case("lkj_batch", D("LKJCholesky", 2, T([1.0, 2.0])), SHAPES,
              calls("log_prob", T([[1.0, 0.0], [0.6, 0.8]])), draws([3], methods=("sample",))),
        _case("lkj_dim1", D("LKJCholesky", 1, 1.0)),
        _case("lkj_bad_method", D("LKJCholesky", 2, 1.0, "other")),
        _case("independent", D("Independent", normal23, 1), SHAPES, MOMENTS,
              [["call", "entropy"]], calls("log_prob", T([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])),
              calls("prob", T([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])), draws([4], [],
                                                                       methods=("sample",))),
        _case("independent_all", D("Independent", normal23, 2), SHAPES, [["call", "entropy"]],
              calls("log_prob", T([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]))),
        _case("independent_too_many", D("Independent", normal23, 3)),
        _case("transformed_affine_exp",
              D("TransformedDistribution", D("Normal", 0.0, 1.0),
                [TR("AffineTransform", T(1.0), T(2.0)), TR("ExpTransform")]),
              SHAPES, calls("log_prob", T([0.5, 3.0])), draws([3], [])),
        _case("transformed_stick_breaking",
              D("TransformedDistribution", D("Normal", T([0.0, 1.0]), T([1.0, 1.0])),
                [TR("StickBreakingTransform")]),
              SHAPES, calls("log_prob", T([0.2, 0.3, 0.5])), draws([3], [])),
        _case("transformed_reshape",
              D("TransformedDistribution", D("Normal", T([[0.0, 1.0, 2.0], [0.0, 0.0, 0.0]]),
                                             T([[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]])),
                [TR("ReshapeTransform", TUP(2, 3), TUP(3, 2))]),
              SHAPES, calls("log_prob", T([[0.5, 1.0], [0.0, 1.0], [2.0, -1.0]])), draws([2])),
        _case("transformed_empty", D("TransformedDistribution", D("Normal", 0.0, 1.0), []),
              SHAPES, calls("log_prob", T(0.5))),
        _case("transformed_bad_base", D("TransformedDistribution", 1.0,
                                        [TR("ExpTransform")])),
    ]


def _transform_calls(x, y, shape):
    return [["call", "forward", x], ["call", "inverse", y],
            ["call", "forward_log_det_jacobian", x], ["call", "inverse_log_det_jacobian", y],
            ["call", "forward_shape", shape], ["call", "inverse_shape", shape],
            ["call", "__call__", x]]


def _transform_cases():
    x2 = T([[0.5, -1.0, 2.0], [0.1, 0.2, -0.3]])
    pos = T([[0.5, 1.0, 2.0], [0.1, 0.2, 3.0]])
    unit = T([[0.5, 0.9, 0.2], [0.1, 0.3, 0.7]])
    simplex = T([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    return [
        _case("t_abs", TR("AbsTransform"), _transform_calls(x2, pos, TUP(2, 3))),
        _case("t_affine", TR("AffineTransform", T([0.0, 1.0, -1.0]), T([2.0, -3.0, 0.5])),
              _transform_calls(x2, x2, TUP(2, 3))),
        _case("t_affine_bad", TR("AffineTransform", 1.0, T(1.0))),
        _case("t_chain", TR("ChainTransform", [TR("AffineTransform", T(1.0), T(2.0)),
                                                TR("ExpTransform")]),
              _transform_calls(x2, pos, TUP(2, 3))),
        _case("t_chain_simplex", TR("ChainTransform", [TR("ExpTransform"),
                                                        TR("StickBreakingTransform")]),
              _transform_calls(x2, T([[0.2, 0.3, 0.1, 0.4]]), TUP(2, 3))),
        _case("t_exp", TR("ExpTransform"), _transform_calls(x2, pos, TUP(2, 3))),
        _case("t_independent", TR("IndependentTransform", TR("ExpTransform"), 1),
              _transform_calls(x2, pos, TUP(2, 3))),
        _case("t_independent_bad", TR("IndependentTransform", TR("ExpTransform"), 0)),
        _case("t_power", TR("PowerTransform", T(2.0)), _transform_calls(pos, pos, TUP(2, 3))),
        _case("t_power_vector", TR("PowerTransform", T([0.5, 2.0, 3.0])),
              _transform_calls(pos, pos, TUP(4, 1))),
        _case("t_reshape", TR("ReshapeTransform", TUP(3,), TUP(3, 1)),
              _transform_calls(x2, T([[[1.0], [2.0], [3.0]]]), TUP(4, 3)),
              calls("forward_shape", TUP(4, 2))),
        _case("t_reshape_bad", TR("ReshapeTransform", TUP(2, 3), TUP(5,))),
        _case("t_sigmoid", TR("SigmoidTransform"), _transform_calls(x2, unit, TUP(2, 3))),
        _case("t_softmax", TR("SoftmaxTransform"), _transform_calls(x2, simplex, TUP(2, 3))),
        _case("t_stack", TR("StackTransform", [TR("ExpTransform"), TR("TanhTransform")], 1),
              calls("forward", T([[0.5, 0.3], [1.0, -1.0]])),
              calls("inverse", T([[0.5, 0.3], [1.0, -0.5]])),
              calls("forward_log_det_jacobian", T([[0.5, 0.3], [1.0, -1.0]])),
              calls("forward", T([[0.5, 0.3, 0.1]]))),
        _case("t_stick_breaking", TR("StickBreakingTransform"),
              _transform_calls(x2, simplex, TUP(2, 3))),
        _case("t_tanh", TR("TanhTransform"),
              _transform_calls(x2, T([[0.5, -0.9, 0.2], [0.1, 0.3, -0.7]]), TUP(2, 3))),
        _case("t_exp_on_list", TR("ExpTransform"), calls("forward", [1.0, 2.0])),
    ]


CASES = _continuous_cases() + _discrete_cases() + _structured_cases() + _transform_cases()
