/* wheel: a torch wheel read without installing or extracting it (`fix
 * --wheel FILE`): the version in its .dist-info/METADATA (else its file
 * name), its CUDA variant (the local version, else torch/version.py's cuda),
 * and the device code of torch/lib/libtorch_cuda.so, inflated member by
 * member into the fatbin walk of format/fatbin.h, 32 KiB at a time. The file
 * is a host path (named on the command line). Fills *w, strings in f->arena;
 * what could not be read is in w->error, never a failure of the run. */
#ifndef CD_PROBE_WHEEL_H
#define CD_PROBE_WHEEL_H

#include "facts/facts.h"
#include "facts/libs.h"

void wheel_probe(struct cd_facts *f, const char *path, struct cd_torch_wheel *w);

#endif
