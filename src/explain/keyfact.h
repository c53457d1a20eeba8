/* keyfact: the canonical form of a fact captured from a log line, so one
 * fact reads the same whoever printed it: compute capabilities as "8.6"
 * (from "sm_86", "86", "compute_86", "8.6"), CUDA versions as "12.1" (from
 * "12.1.105", "cu121", "12010"), a compiler as its major ("13"), a Python
 * version tuple as a version ("9, 19, 0" -> "9.19.0"). Names
 * without a rule keep their value, with control bytes replaced. Pure: writes
 * into the caller's buffer, never fails (a value cut to fit stays valid). */
#ifndef CD_KEYFACT_H
#define CD_KEYFACT_H

#include <stddef.h>
#include <stdint.h>

/* Write the canonical value of fact `name` (raw bytes p[0, n)) into out
 * (cap >= 1), NUL-terminated; returns its length. */
size_t keyfact_norm(const char *name, const uint8_t *p, size_t n, char *out, size_t cap);

/* 1 when v, a value keyfact_norm wrote, is in its canonical form: a
 * compute capability or a CUDA version as "X.Y"; any value of a name
 * without a rule. A value that failed to normalise ("535.104.05" as cc) is
 * not, and a fact taken from the lines around is then left out. */
int keyfact_canonical(const char *name, const char *v);

/* The value of fact `name` found in p[0, n) on a line around a diagnosis,
 * normalised into out (as keyfact_norm): 1 when it can be that fact there,
 * 0 when it cannot (a bare number as a compute capability, a value that is
 * not canonical); out is then not to be used. bare_int: the pattern types the
 * capture as a plain integer ({cc:int}), where the tool itself writes a
 * compute capability as its digits (Paddle's "CUDA Capability: 61"), so a
 * bare number is one; it must still normalise to the canonical form. */
int keyfact_context(const char *name, const uint8_t *p, size_t n, int bare_int, char *out,
		    size_t cap);

#endif
