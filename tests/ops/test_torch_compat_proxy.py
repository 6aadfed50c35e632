"""The torch compatibility switch (Paddle 3.3's paddle.enable_compat / disable_compat),
dygraph/compat/proxy.py: `import torch` gives DyGraph while it is on."""

import sys
import warnings

import pytest

import dygraph
from dygraph.compat import proxy


@pytest.fixture(autouse=True)
def switch_off_afterwards():
    yield
    if proxy._FINDER in sys.meta_path:
        proxy.disable_torch_proxy()
    proxy._FINDER.scope = None
    for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
        if isinstance(sys.modules[name], proxy.ProxyModule):
            del sys.modules[name]


def _real_torch_installed():
    return any(f.find_spec("torch", None) for f in sys.meta_path
               if f is not proxy._FINDER and hasattr(f, "find_spec"))


def test_import_torch_gives_dygraph_while_the_switch_is_on():
    assert proxy.enable_torch_proxy() is None
    import torch
    import torch.nn.functional as functional

    assert torch.__name__ == "torch" and isinstance(torch, proxy.ProxyModule)
    assert torch.sin is dygraph.sin and torch.nn.Linear is dygraph.nn.Linear
    assert functional.softmax is dygraph.nn.functional.softmax
    assert torch.relu is dygraph.nn.functional.relu  # a name at another path
    assert "sin" in dir(torch)
    assert torch.to_tensor([2.0]).numpy().tolist() == [2.0]
    with pytest.raises(ModuleNotFoundError):
        import torch.no_such_module  # noqa: F401
    assert proxy.disable_torch_proxy() is None
    assert not isinstance(sys.modules.get("torch"), proxy.ProxyModule)


@pytest.mark.skipif(_real_torch_installed(), reason="a real torch answers the import")
def test_the_switch_off_leaves_torch_unimportable():
    proxy.enable_torch_proxy()
    proxy.disable_torch_proxy()
    with pytest.raises(ModuleNotFoundError):
        import torch  # noqa: F401


def test_disabling_twice_warns_as_paddle():
    with pytest.warns(UserWarning, match="not installed"):
        proxy.disable_torch_proxy()


def test_a_scope_limits_the_switch_to_the_modules_named(tmp_path, monkeypatch):
    (tmp_path / "scoped_user.py").write_text("import torch\nSIN = torch.sin\n")
    (tmp_path / "blocked_user.py").write_text(
        "def load():\n    import torch\n    return torch\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    proxy.enable_torch_proxy(scope="scoped_user", blocked_modules=["blocked_user"])
    import scoped_user

    assert scoped_user.SIN is dygraph.sin
    if not _real_torch_installed():
        with pytest.raises(ModuleNotFoundError):
            import torch  # noqa: F401  (outside the scope)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        proxy.enable_torch_proxy()  # now everywhere
    assert any("globally" in str(w.message) for w in caught)
    import blocked_user

    if not _real_torch_installed():
        with pytest.raises(ModuleNotFoundError):
            blocked_user.load()
    import torch

    assert torch.sin is dygraph.sin


def test_the_guard_restores_the_switch():
    with proxy.use_torch_proxy_guard():
        import torch

        assert torch.cos is dygraph.cos
    assert proxy._FINDER not in sys.meta_path
    proxy.enable_torch_proxy()
    with proxy.use_torch_proxy_guard(enable=False):
        assert proxy._FINDER not in sys.meta_path
    assert proxy._FINDER in sys.meta_path


def test_only_the_torch_backend_is_known():
    with pytest.raises(AssertionError, match="backend"):
        proxy.enable_torch_proxy(backend="jax")
