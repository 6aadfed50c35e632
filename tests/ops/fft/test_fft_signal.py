"""Behaviour of dygraph.fft, dygraph.signal and the complex basics beyond the spec table:
dtypes, argument errors, gradient dtypes, identities and round trips."""

import numpy as np
import pytest

import dygraph as D


def test_transforms_keep_precision_and_promote_ints():
    assert D.fft.fft(D.ones([4])).dtype == D.complex64
    assert D.fft.fft(D.ones([4], dtype="float64")).dtype == D.complex128
    assert D.fft.fft(D.to_tensor([1, 2, 3])).dtype == D.complex64
    assert D.fft.irfft(D.fft.rfft(D.ones([6], dtype="float64"))).dtype == D.float64
    assert D.fft.rfft(D.ones([6])).shape == [4]
    assert D.fft.irfft(D.ones([4], dtype="complex64")).shape == [6]
    assert D.fft.irfft(D.ones([4], dtype="complex64"), n=7).shape == [7]


def test_norm_modes_scale_as_documented():
    x = np.random.default_rng(0).standard_normal(8)
    for norm, scale in (("backward", 1.0), ("forward", 1 / 8), ("ortho", 8 ** -0.5)):
        got = D.fft.fft(D.to_tensor(x), norm=norm).numpy()
        np.testing.assert_allclose(got, np.fft.fft(x) * scale, atol=1e-12)
        back = D.fft.ifft(D.to_tensor(got), norm=norm).numpy()
        np.testing.assert_allclose(back.real, x, atol=1e-12)


def test_bad_arguments_name_the_op():
    with pytest.raises(TypeError, match="rfft"):
        D.fft.rfft(D.to_tensor([1j]))
    with pytest.raises(ValueError, match="norm"):
        D.fft.fft(D.ones([2]), norm="none")
    with pytest.raises(ValueError, match="positive"):
        D.fft.fft(D.ones([2]), n=0)
    with pytest.raises(ValueError, match="same length"):
        D.fft.fftn(D.ones([2, 2]), s=[2], axes=[0, 1])
    with pytest.raises(ValueError, match="fft2"):
        D.fft.fft2(D.ones([2, 2, 2]), axes=(0, 1, 2))
    with pytest.raises(ValueError, match="distinct"):
        D.fft.fftn(D.ones([2, 2]), axes=[1, 1])
    with pytest.raises(ValueError, match="irfft"):
        D.fft.irfft(D.ones([1], dtype="complex64"))


def test_real_input_gets_a_real_gradient_parseval():
    x = D.to_tensor(np.random.default_rng(1).standard_normal(6).astype(np.float32),
                    stop_gradient=False)
    spectrum = D.fft.fft(x)
    (D.real(spectrum) ** 2 + D.imag(spectrum) ** 2).sum().backward()
    assert x.grad.dtype == D.float32
    np.testing.assert_allclose(x.grad.numpy(), 2 * 6 * x.numpy(), rtol=1e-5)


def test_spectral_convolution_gradient_matches_direct_convolution():
    rng = np.random.default_rng(2)
    xs, ks = rng.standard_normal(8), rng.standard_normal(8)
    x = D.to_tensor(xs, stop_gradient=False)
    k = D.to_tensor(ks, stop_gradient=False)
    y = D.fft.irfft(D.fft.rfft(x) * D.fft.rfft(k), n=8)  # circular convolution
    w = rng.standard_normal(8)
    (y * D.to_tensor(w)).sum().backward()
    # d/dx sum_t w_t sum_s x_s k_(t-s) = sum_t w_t k_(t-s): a circular correlation.
    want_x = np.array([sum(w[t] * ks[(t - s) % 8] for t in range(8)) for s in range(8)])
    np.testing.assert_allclose(x.grad.numpy(), want_x, atol=1e-10)


def test_freq_and_shift_helpers():
    np.testing.assert_allclose(D.fft.fftfreq(5, d=0.1).numpy(), np.fft.fftfreq(5, 0.1),
                               rtol=1e-6)
    assert D.fft.rfftfreq(8, dtype="float64").dtype == D.float64
    x = D.arange(12).reshape([3, 4])
    np.testing.assert_array_equal(D.fft.fftshift(x, axes=1).numpy(),
                                  np.fft.fftshift(x.numpy(), axes=1))
    np.testing.assert_array_equal(D.fft.ifftshift(D.fft.fftshift(x)).numpy(), x.numpy())


def test_complex_basics():
    z = D.to_tensor(np.array([1 + 2j, -3 - 1j], dtype=np.complex64))
    np.testing.assert_array_equal(z.real().numpy(), [1, -3])
    np.testing.assert_array_equal(z.imag().numpy(), [2, -1])
    np.testing.assert_array_equal(z.conj().numpy(), [1 - 2j, -3 + 1j])
    assert z.is_complex() and not D.is_complex(D.ones([1]))
    np.testing.assert_allclose(D.angle(D.to_tensor([-2.0, 3.0])).numpy(), [np.pi, 0.0])
    np.testing.assert_array_equal(D.as_complex(D.as_real(z)).numpy(), z.numpy())
    assert D.complex(D.ones([2, 1]), D.zeros([3])).shape == [2, 3]
    with pytest.raises(ValueError, match="as_complex"):
        D.as_complex(D.ones([3, 3]))
    with pytest.raises(TypeError, match="as_real"):
        D.as_real(D.ones([3]))


def test_cast_to_complex_sends_back_the_real_part():
    x = D.to_tensor([1.0, 2.0], stop_gradient=False)
    z = x.astype("complex64") * D.to_tensor(np.array([1j, 2 + 1j], np.complex64))
    D.imag(z).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])
    assert x.grad.dtype == D.float32


def test_stft_istft_round_trip_with_a_window():
    rng = np.random.default_rng(3)
    x = D.to_tensor(rng.standard_normal((2, 64)))
    window = D.to_tensor(np.hanning(18)[1:-1])  # 16 points, non-zero everywhere
    spec = D.signal.stft(x, n_fft=16, hop_length=4, window=window)
    assert spec.shape == [2, 9, 17] and spec.dtype == D.complex128
    back = D.signal.istft(spec, n_fft=16, hop_length=4, window=window, length=64)
    np.testing.assert_allclose(back.numpy(), x.numpy(), atol=1e-10)
    assert x.stft(16, 4).shape == [2, 9, 17]  # Tensor method


def test_stft_errors_and_nola():
    with pytest.raises(ValueError, match="n_fft"):
        D.signal.stft(D.ones([8]), n_fft=16)
    with pytest.raises(ValueError, match="onesided"):
        D.signal.stft(D.to_tensor(np.ones(16, np.complex64)), n_fft=8, onesided=True)
    with pytest.raises(ValueError, match="pad_mode"):
        D.signal.stft(D.ones([16]), n_fft=8, pad_mode="edge")
    zero_edges = D.to_tensor(np.hanning(8))  # zero at both ends
    spec = D.signal.stft(D.ones([32]), n_fft=8, hop_length=8, window=zero_edges,
                         center=False)
    with pytest.raises(ValueError, match="Overlap"):
        D.signal.istft(spec, n_fft=8, hop_length=8, window=zero_edges, center=False)
    with pytest.raises(TypeError, match="istft"):
        D.signal.istft(D.ones([5, 3]), n_fft=8)


def test_empty_and_zero_d_inputs_and_real_only_transforms():
    # an empty input gives an empty result of the transform's shape and dtype
    assert D.fft.fft2(D.zeros([0, 4])).shape == [0, 4]
    assert D.fft.rfftn(D.zeros([0, 4])).shape == [0, 3]
    out = D.fft.hfft2(D.zeros([0, 4]))
    assert out.shape == [0, 6] and out.dtype == D.float32
    with pytest.raises(ValueError, match="0-D"):
        D.fft.fft(D.to_tensor(1.0))
    with pytest.raises(RuntimeError, match="rfft: .*complex64"):  # Paddle has no complex kernel
        D.fft.rfft(D.ones([4], dtype="complex64"))
    assert D.fft.fftfreq(4, dtype="int64").dtype == D.float32
