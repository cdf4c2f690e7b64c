/* doc.c - pc_doc (doc.h): a JSON document held by name. */
#include "doc.h"
#include <cjson/cJSON.h>

void pc_doc_free(pc_doc *d) {
    cJSON_Delete(d);
}
