/* cuda_profiler_api.h - a stand-in; see cuda.h here. */
#ifndef MOCK_NOCUDA_CUDA_PROFILER_API_H
#define MOCK_NOCUDA_CUDA_PROFILER_API_H
#include "cuda_runtime_api.h"
cudaError_t CUDARTAPI cudaProfilerStart(void);
cudaError_t CUDARTAPI cudaProfilerStop(void);
#endif
