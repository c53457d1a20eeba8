/* stack_check: what the stack check files (stack.c, stack_reqs.c) share.
 * Pure functions of the facts; strings come from the findings' arena. */
#ifndef CD_STACK_CHECK_H
#define CD_STACK_CHECK_H

#include "check/check.h"
#include "core/err.h"
#include "format/pep440.h"
#include "probe/stack/stack.h"

/* The interpreter, and the pip command that installs into this environment
 * ("/opt/torch/.venv/bin/python3 -m pip install", "uv pip install --python ..."). */
const char *stack_python(const struct cd_facts *f);
const char *stack_pip(const struct cd_facts *f);
/* The installed version of p, parsed; CD_ENOENT / CD_EFORMAT when unusable. */
CD_WUR int stack_version(const struct cd_package *p, struct pep440_version *v);
/* torch, torchvision, transformers, ..., nvidia-*: the packages whose
 * requirements cuda-doctor evaluates. */
int stack_is_ml(const char *name);
/* torch/version.py and torch's dist-info disagree on the version. */
int stack_torch_mixed(const struct cd_stack_facts *st);
/* package-requirement-unmet and wheel-pin-mismatch. */
void stack_requirement_findings(const struct cd_facts *f, struct cd_findings *out);

#endif
