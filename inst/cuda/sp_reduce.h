/* sp_reduce.h: the reductions across a thread block and across a grid that
 * the kernels share (mb.cu; once lrmd.cu too), written once.  Fixed trees: the
 * same inputs give the same sums bit for bit, whatever the launch.  CUDA
 * only. */
#ifndef SP_REDUCE_H
#define SP_REDUCE_H

/* Block-wide sums of v[0 .. K-1], the results in thread 0's v (the other
 * threads' v are left as they are): each warp's lanes by a tree of
 * shuffles, then the warps' sums in warp order by thread 0.  WARPS is the
 * block's size / 32.  Every thread of the block calls it; it ends with a
 * barrier, so the next call may reuse the shared array.  (Summed in place:
 * a copy with the warps' sums interleaved took two registers more in the
 * deleted built-in Kuramoto kernels.) */
template <int K, int WARPS>
__device__ __forceinline__ void sp_block_sum(double v[K]) {
  __shared__ double red[K][WARPS];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  double x[K];
  for (int k = 0; k < K; k++) x[k] = v[k];
  for (int o = 16; o > 0; o >>= 1)
    for (int k = 0; k < K; k++) x[k] += __shfl_down_sync(0xffffffffu, x[k], o);
  if (lane == 0)
    for (int k = 0; k < K; k++) red[k][warp] = x[k];
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int k = 0; k < K; k++) x[k] = 0;
    for (int w = 0; w < WARPS; w++)
      for (int k = 0; k < K; k++) x[k] += red[k][w];
    for (int k = 0; k < K; k++) v[k] = x[k];
  }
  __syncthreads();
}

/* Is this block the last of `total` to arrive at *count (the last-block-done
 * pattern of the CUDA samples' threadFenceReduction)?  Every thread of the
 * block calls it once the stores the last block is to read are made: by
 * thread 0 alone, or by any thread before a barrier.  The answer is the
 * same in every thread of the block.  One device-wide fence a block, by the
 * thread that counts (fences are cumulative: they order the block's stores
 * that the barrier made visible to it, as cooperative groups' grid sync
 * does), and one more in the last block before its loads of the others'
 * stores, which must come from L2 (__ldcg or volatile: not a stale L1
 * line).  The last block resets the counter for the next launch. */
__device__ __forceinline__ bool sp_grid_last(unsigned int *count, unsigned int total) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(count, 1u) == total - 1u;
    if (last) {
      __threadfence(); /* the other blocks' stores before the loads that follow */
      *count = 0;
    }
  }
  __syncthreads();
  return last;
}

/* The last block's sums of the blocks' partial pairs p[0 .. n-1] (from L2),
 * into thread 0's v[0], v[1]: thread t adds the pairs t, t + BLOCK, t +
 * 2 BLOCK, ... in that order (four loads in flight), then the block adds
 * the threads' sums (sp_block_sum).  BLOCK: the block's size.  n by
 * reference: a count in the kernel's arguments is read from there in the
 * loop, not held in a register (two registers less in the mean-field
 * kernels of the deleted built-in Kuramoto engine). */
template <int BLOCK>
__device__ __forceinline__ void sp_grid_sum2(const double2 *p, const int &n, double v[2]) {
  double S = 0, C = 0;
  int j = threadIdx.x;
  for (; j + 3 * BLOCK < n; j += 4 * BLOCK) {
    const double2 v0 = __ldcg(p + j), v1 = __ldcg(p + j + BLOCK), v2 = __ldcg(p + j + 2 * BLOCK),
                  v3 = __ldcg(p + j + 3 * BLOCK);
    S += v0.x; C += v0.y;
    S += v1.x; C += v1.y;
    S += v2.x; C += v2.y;
    S += v3.x; C += v3.y;
  }
  for (; j < n; j += BLOCK) {
    const double2 w = __ldcg(p + j);
    S += w.x;
    C += w.y;
  }
  v[0] = S;
  v[1] = C;
  sp_block_sum<2, BLOCK / 32>(v);
}

#endif /* SP_REDUCE_H */
