/* fixkb: what `cuda-doctor fix` orders its plan by and checks it with:
 * which finding causes which (data/fix_causes.tsv, closed transitively) and
 * the command that shows a step worked (data/fix_verify.tsv). The tables are
 * read from the embedded files on first use into static storage (not
 * thread-safe, like the rest of a run); strings point into it. A malformed
 * table reads as empty: no order, no verify line, never a wrong one. */
#ifndef CD_FIXKB_H
#define CD_FIXKB_H

/* 1 when a finding of id cause causes one of id effect, directly or not. */
int fixkb_causes(const char *cause, const char *effect);
/* The verify command for id ("{python}" not yet replaced); NULL when none. */
const char *fixkb_verify(const char *id);

#endif
