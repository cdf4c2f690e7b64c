#include "cbid.h"
#include <stddef.h>

const char *pc_cuda_runtime_api(int cbid) {
    switch (cbid) {
#define CBID(id, name) \
    case id: return name;
#include "cbid_runtime.def"
#undef CBID
    default: return NULL;
    }
}
