/* pipeline_int.h - what the pipeline's files share (pipeline.h is the stage's interface). */
#ifndef PC_PIPELINE_INT_H
#define PC_PIPELINE_INT_H
#include "pipeline.h"
/* One line, formatted as printf, handed to o->say (pipeline.h). */
void pl_say(const pl_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
