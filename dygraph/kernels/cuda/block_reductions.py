"""Block-wide reductions in CUDA C for the row kernels (registry.define_rows), over the
type T: a thread block reduces one value per thread through the shared buffer `part`
(one slot per thread; blockDim.x a power of two, at most registry.MAX_ROW_THREADS) in a
tree of halvings. Every thread gets the result; the last barrier lets the next reduction
reuse `part`.

Example:
    >>> "block_sum(T v, T* part)" in BLOCK_SUM
    True
"""

__all__ = ["BLOCK_MAX", "BLOCK_SUM", "ROW_EXP_SUM"]

# A NaN among the values may be lost here (a comparison with NaN is false); the sums
# carry it instead (see ROW_EXP_SUM).
BLOCK_MAX = """
__device__ T block_max(T v, T* part) {
    const int tid = threadIdx.x;
    part[tid] = v;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (tid < half) {
            const T b = part[tid + half];
            if (b > part[tid]) part[tid] = b;
        }
        __syncthreads();
    }
    const T result = part[0];
    __syncthreads();
    return result;
}
"""

BLOCK_SUM = """
__device__ T block_sum(T v, T* part) {
    const int tid = threadIdx.x;
    part[tid] = v;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (tid < half) part[tid] = part[tid] + part[tid + half];
        __syncthreads();
    }
    const T result = part[0];
    __syncthreads();
    return result;
}
"""

# A softmax row's statistics, with the two reductions above: its maximum m, starting from
# its first element (so no infinity constant is needed), and s = sum(exp(x - m)). A NaN in
# the row makes s NaN, so everything computed from it is NaN, as in the NumPy formula.
ROW_EXP_SUM = BLOCK_MAX + BLOCK_SUM + """
__device__ void row_exp_sum(const T* xr, long long n, T* part, T* m_out, T* s_out) {
    T m = xr[0];
    for (long long j = threadIdx.x; j < n; j += blockDim.x) {
        const T v = xr[j];
        if (v > m) m = v;
    }
    m = block_max(m, part);
    T s = 0;
    for (long long j = threadIdx.x; j < n; j += blockDim.x) s += exp(xr[j] - m);
    *m_out = m;
    *s_out = block_sum(s, part);
}
"""
