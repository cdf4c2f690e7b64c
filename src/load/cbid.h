/* cbid.h - the CUDA runtime API a CUPTI callback id names (nvprof's
 * databases record runtime calls by id only), from cbid_runtime.def, which
 * tools/gen_cbid.sh generates from CUPTI's cupti_runtime_cbid.h. */
#ifndef PC_CBID_H
#define PC_CBID_H
/* "cudaMemsetAsync" for 51; NULL for an id the header does not list. */
const char *pc_cuda_runtime_api(int cbid);
#endif
