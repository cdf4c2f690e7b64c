// A small CUDA program with known kernels, for `perfcard capture`:
//   nvcc -O2 -o vecadd examples/cuda/vecadd.cu
//   perfcard capture -o out/cuda -- ./vecadd
// It runs 5 steps; each launches `scale` once and `vec_add` twice (15 kernels
// in all), copies 4 MiB host-to-device and back, and marks its steps with
// NVTX-free perfcard markers when PERFCARD_LIB is set (through dlopen).
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void vec_add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void scale(float *a, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] *= s;
}

int main(void) {
    const int n = 1 << 20;
    void (*step_begin)(void) = NULL, (*step_end)(void) = NULL;
    const char *lib = getenv("PERFCARD_LIB");
    void *h = lib ? dlopen(lib, RTLD_NOW) : NULL;
    if (h) {
        step_begin = (void (*)(void))dlsym(h, "perfcard_step_begin");
        step_end = (void (*)(void))dlsym(h, "perfcard_step_end");
    }
    float *ha = (float *)malloc(n * sizeof(float)), *da, *db, *dc;
    for (int i = 0; i < n; i++) ha[i] = (float)i;
    if (cudaMalloc(&da, n * sizeof(float)) != cudaSuccess) { fprintf(stderr, "vecadd: no CUDA device\n"); return 1; }
    cudaMalloc(&db, n * sizeof(float));
    cudaMalloc(&dc, n * sizeof(float));
    for (int s = 0; s < 5; s++) {
        if (step_begin) step_begin();
        cudaMemcpy(da, ha, n * sizeof(float), cudaMemcpyHostToDevice);
        cudaMemcpy(db, ha, n * sizeof(float), cudaMemcpyHostToDevice);
        scale<<<(n + 255) / 256, 256>>>(da, 2.0f, n);
        vec_add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
        vec_add<<<(n + 255) / 256, 256>>>(dc, db, dc, n);
        cudaMemcpy(ha, dc, n * sizeof(float), cudaMemcpyDeviceToHost);
        if (step_end) step_end();
    }
    printf("vecadd: c[1] = %.1f\n", ha[1]);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    free(ha);
    return 0;
}
