"""Block-wide reductions in CUDA C for the row kernels (registry.define_rows), over the
type T: a thread block reduces one value per thread through the shared buffer `part`
(one slot per thread; blockDim.x a power of two, at most registry.MAX_ROW_THREADS) in a
tree of halvings. Every thread gets the result; the last barrier lets the next reduction
reuse `part`.

Example:
    >>> "block_sum(T v, T* part)" in BLOCK_SUM
    True
"""

__all__ = ["BLOCK_MAX", "BLOCK_SUM"]

# A NaN among the values may be lost here (a comparison with NaN is false); the row
# kernels' sums carry it instead (see softmax_rows.py).
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
