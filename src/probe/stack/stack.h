/* stack: the Python / PyTorch stack as read from disk, never by running
 * Python: the environment (python.c), its installed distributions and conda
 * records (packages.c) and torch's version.py. stack_probe allocates one
 * struct cd_stack_facts in f->arena and hangs it on f->stack; everything it
 * points to lives in the same arena. What cannot be read stays NULL / unknown
 * and the reason is kept (`problem` fields), so checks can report it. */
#ifndef CD_STACK_H
#define CD_STACK_H

#include <stddef.h>

#include "probe/stack/python.h"
#include "facts/stack.h"

void stack_probe(struct cd_facts *f);
/* The package part of stack_probe (packages.c), after python_probe. */
void packages_probe(struct cd_facts *f, struct cd_stack_facts *st);

#endif
