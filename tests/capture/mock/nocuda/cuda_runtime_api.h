/* cuda_runtime_api.h - a stand-in for the CUDA runtime API header: only what
 * the mock runtime (../runtime.c) and train.c use; see cuda.h here. */
#ifndef MOCK_NOCUDA_CUDA_RUNTIME_API_H
#define MOCK_NOCUDA_CUDA_RUNTIME_API_H
#include "cuda.h"

#define CUDARTAPI
typedef enum cudaError { cudaSuccess = MOCKV_cudaSuccess } cudaError_t;
typedef struct CUstream_st *cudaStream_t;
typedef struct uint3 { unsigned int x, y, z; } uint3;
typedef struct dim3 { unsigned int x, y, z; } dim3;
enum cudaMemcpyKind {
    cudaMemcpyHostToHost = MOCKV_cudaMemcpyHostToHost,
    cudaMemcpyHostToDevice = MOCKV_cudaMemcpyHostToDevice,
    cudaMemcpyDeviceToHost = MOCKV_cudaMemcpyDeviceToHost,
    cudaMemcpyDeviceToDevice = MOCKV_cudaMemcpyDeviceToDevice,
    cudaMemcpyDefault = MOCKV_cudaMemcpyDefault,
};
cudaError_t CUDARTAPI cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shmem, cudaStream_t stream);
cudaError_t CUDARTAPI cudaMalloc(void **p, size_t n);
cudaError_t CUDARTAPI cudaFree(void *p);
cudaError_t CUDARTAPI cudaMallocHost(void **p, size_t n);
cudaError_t CUDARTAPI cudaFreeHost(void *p);
cudaError_t CUDARTAPI cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t s);
cudaError_t CUDARTAPI cudaMemset(void *p, int v, size_t n);
cudaError_t CUDARTAPI cudaDeviceSynchronize(void);
cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t s);
cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t *s);
cudaError_t CUDARTAPI cudaGetDeviceCount(int *n);
cudaError_t CUDARTAPI cudaRuntimeGetVersion(int *v);
#endif
