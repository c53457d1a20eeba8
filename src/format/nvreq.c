/* nvreq: see nvreq.h. The loops mirror dsl_evaluate(): alternatives are
 * tried in order and the first whose conditions all hold ends the search, so
 * a malformed condition is only an error when it is reached. */
#include "format/nvreq.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/str.h"

enum op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_BAD };

static enum op parse_op(const char *s, size_t n)
{
	static const char *const ops[] = {"=", "!=", "<", "<=", ">", ">="};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strlen(ops[i]) == n && !strncmp(s, ops[i], n))
			return (enum op)i;
	return OP_BAD;
}

static int digits_dots(const char *s)
{
	return strspn(s, "0123456789.") == strlen(s);
}

static int cmp_version(const char *v1, enum op op, const char *v2)
{
	uintmax_t a, b;
	char *e1, *e2;

	if (!digits_dots(v1) || !digits_dots(v2))
		return -1;
	while (*v1 && *v2) {
		a = strtoumax(v1, &e1, 10);
		b = strtoumax(v2, &e2, 10);
		if (e1 == v1 || e2 == v2 || a == UINTMAX_MAX || b == UINTMAX_MAX)
			return -1;
		if (a != b) {
			if (op == OP_EQ)
				return 0;
			if (op == OP_NE)
				return 1;
			return op == OP_LT || op == OP_LE ? a < b : a > b;
		}
		v1 = e1 + strspn(e1, ".");
		v2 = e2 + strspn(e2, ".");
	}
	v1 += strspn(v1, ".0");
	v2 += strspn(v2, ".0");
	if (op == OP_NE)
		return *v1 || *v2;
	if (op == OP_EQ || op == OP_LE || op == OP_GE) {
		if (!*v1 && !*v2)
			return 1;
		if (op == OP_EQ)
			return 0;
	}
	if (op == OP_LT || op == OP_LE)
		return !*v1 && *v2;
	return *v1 && !*v2;
}

int nvreq_compare_version(const char *v1, const char *op, const char *v2)
{
	enum op o = parse_op(op, strlen(op));

	return o == OP_BAD ? -1 : cmp_version(v1, o, v2);
}

/* One condition "name<op>value" (not NUL-terminated): 1, 0, or -1 when malformed. */
static int condition(const char *c, size_t n, const struct nvreq_host *h)
{
	char name[32], val[64];
	size_t k = 0, m;
	enum op op;
	const char *fact;

	while (k < n && !(c[k] && strchr("<>=!", c[k])))
		k++;
	if (!k || k >= sizeof(name) || k == n)
		return -1;
	m = k;
	while (m < n && c[m] && strchr("<>=!", c[m]))
		m++;
	op = parse_op(c + k, m - k);
	if (op == OP_BAD || m >= n || n - m >= sizeof(val))
		return -1;
	memcpy(name, c, k);
	name[k] = '\0';
	memcpy(val, c + m, n - m);
	val[n - m] = '\0';
	if (!strcasecmp(name, "brand")) {
		if (op != OP_EQ && op != OP_NE)
			return -1;
		if (!h->brand)
			return 1;
		return (strcasecmp(h->brand, val) == 0) == (op == OP_EQ);
	}
	if (!strcasecmp(name, "cuda"))
		fact = h->cuda;
	else if (!strcasecmp(name, "driver"))
		fact = h->driver;
	else if (!strcasecmp(name, "arch"))
		fact = h->arch;
	else
		return -1;
	return fact ? cmp_version(fact, op, val) : 1;
}

static void keep(char *dst, const char *s, size_t n)
{
	str_ncopy(dst, NVREQ_TEXT_MAX, s, n);
}

/* As dsl_evaluate: `ret` carries over between alternatives, so one made only
 * of empty conditions repeats the verdict before it. */
enum nvreq_result nvreq_eval(const char *expr, size_t n, const struct nvreq_host *h,
			     struct nvreq_eval *out)
{
	size_t i = 0, s, e, cs, ce;
	int ret = 1, broke;

	memset(out, 0, sizeof(*out));
	out->alternative = -1;
	if (n > NVREQ_INPUT_MAX)
		return out->result = NVREQ_INVALID;
	while (i < n) {
		while (i < n && expr[i] == ' ')
			i++;
		if (i >= n)
			break;
		s = i;
		while (i < n && expr[i] != ' ')
			i++;
		e = i;
		if (!out->n_alternatives)
			keep(out->first, expr + s, e - s);
		out->n_alternatives++;
		broke = 0;
		for (cs = s; cs < e; cs = ce + 1) {
			for (ce = cs; ce < e && expr[ce] != ','; ce++)
				;
			if (ce == cs)
				continue;
			ret = condition(expr + cs, ce - cs, h);
			if (ret < 0) {
				keep(out->bad, expr + cs, ce - cs);
				return out->result = NVREQ_INVALID;
			}
			if (!ret) {
				broke = 1;
				break;
			}
		}
		if (!broke) {
			if (ret) {
				out->alternative = out->n_alternatives - 1;
				keep(out->held, expr + s, e - s);
			}
			break;
		}
	}
	return out->result = ret ? NVREQ_OK : NVREQ_REFUSED;
}

int nvreq_cuda_min(const char *expr, size_t n, char *out, size_t cap)
{
	size_t i;

	for (i = 0; i + 6 <= n; i++) {
		size_t k;
		if ((i && expr[i - 1] != ' ' && expr[i - 1] != ',') ||
		    strncasecmp(expr + i, "cuda>=", 6))
			continue;
		for (k = i + 6; k < n && expr[k] != ' ' && expr[k] != ','; k++)
			;
		if (k == i + 6)
			return -1;
		str_ncopy(out, cap, expr + i + 6, k - i - 6);
		return 0;
	}
	return -1;
}
