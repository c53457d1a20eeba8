/* keyfact: see keyfact.h. */
#include "explain/keyfact.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/str.h"

#define XS_TUPLE_MAX 64 /* a version tuple longer than this is left alone */

static size_t clean(const uint8_t *p, size_t n, char *out, size_t cap)
{
	size_t i, k = n < cap - 1 ? n : cap - 1;

	for (i = 0; i < k; i++)
		out[i] = p[i] == '\t' ? ' ' : (p[i] < 0x20 || p[i] == 0x7f) ? '?' : (char)p[i];
	out[k] = '\0';
	return k;
}

static int is_name(const char *name, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(name, *set))
			return 1;
	return 0;
}

/* "sm_86", "sm86", "compute_86", "86", "8.6", "9.0a", "sm_120f" -> "8.6" ...;
 * torch's tuple "(8, 6)" or "8, 6" (torch.cuda.get_device_capability, as
 * xformers prints it) and "8, minor=6" (torch.cuda.get_device_properties'
 * "major=8, minor=6") -> "8.6" */
static size_t norm_cc(char *v, size_t cap)
{
	const char *s = v;
	unsigned major = 0, minor = 0, digits = 0;
	char tmp[32];

	if (strchr(s, ',')) {
		int end = 0;

		if (*s == '(')
			s++;
		if ((sscanf(s, "%u, %u%n", &major, &minor, &end) != 2 &&
		     sscanf(s, "%u, minor=%u%n", &major, &minor, &end) != 2) ||
		    major > 99 || minor > 9 || (s[end] && strcmp(s + end, ")")))
			return strlen(v);
		snprintf(tmp, sizeof(tmp), "%u.%u", major, minor);
		str_copy(v, cap, tmp);
		return strlen(v);
	}
	if (!strncmp(s, "sm_", 3) || !strncmp(s, "sm", 2))
		s += s[2] == '_' ? 3 : 2;
	else if (!strncmp(s, "compute_", 8))
		s += 8;
	if (!isdigit((unsigned char)*s))
		return strlen(v);
	if (strchr(s, '.')) {
		if (sscanf(s, "%u.%u", &major, &minor) != 2 || major > 99 || minor > 9)
			return strlen(v);
	} else {
		const char *d = s;
		while (isdigit((unsigned char)*d))
			d++, digits++;
		if (digits < 2 || digits > 3 || sscanf(s, "%u", &major) != 1)
			return strlen(v);
		minor = major % 10;
		major /= 10;
	}
	snprintf(tmp, sizeof(tmp), "%u.%u", major, minor);
	str_copy(v, cap, tmp);
	return strlen(v);
}

/* "12.1.105" "12.1" "cu121" "cu92" "12010" "V12.1.105" -> "12.1" */
static size_t norm_cuda(char *v, size_t cap)
{
	const char *s = v;
	unsigned a = 0, b = 0, x;
	char tmp[32];

	if (*s == 'V' || *s == 'v')
		s++;
	if (!strncmp(s, "cu", 2) && isdigit((unsigned char)s[2])) {
		if (sscanf(s + 2, "%u", &x) != 1 || x < 10 || x > 999)
			return strlen(v);
		a = x / 10;
		b = x % 10;
	} else if (strchr(s, '.')) {
		if (sscanf(s, "%u.%u", &a, &b) != 2 || a > 99 || b > 99)
			return strlen(v);
	} else if (sscanf(s, "%u", &x) == 1 && x >= 1000 && x < 100000) {
		a = x / 1000; /* cudaDriverGetVersion's encoding: 12010 */
		b = (x % 1000) / 10;
	} else {
		return strlen(v);
	}
	snprintf(tmp, sizeof(tmp), "%u.%u", a, b);
	str_copy(v, cap, tmp);
	return strlen(v);
}

/* "13.2.0" "13" -> "13" */
static size_t norm_major(char *v)
{
	size_t k = 0;

	while (isdigit((unsigned char)v[k]))
		k++;
	if (k && (v[k] == '.' || v[k] == '\0'))
		v[k] = '\0';
	return strlen(v);
}

/* A Python version tuple as torch prints one, "9, 19, 0" or "(9, 19, 0)",
 * -> "9.19.0"; anything else stays as it is: a Python tuple is written with
 * ", " between its parts, so "256,112,112,64" (TensorFlow's shape) is not one. */
static size_t norm_tuple(char *v)
{
	char t[XS_TUPLE_MAX];
	size_t i = 0, k = 0, parts = 0, len = strlen(v);

	if (len && v[0] == '(' && v[len - 1] == ')')
		i = 1, len--;
	while (i < len) {
		if (!isdigit((unsigned char)v[i]))
			return strlen(v);
		while (i < len && isdigit((unsigned char)v[i]) && k < sizeof(t) - 2)
			t[k++] = v[i++];
		parts++;
		if (i == len)
			break;
		if (v[i] != ',' || i + 1 >= len || v[i + 1] != ' ')
			return strlen(v);
		i++;
		while (i < len && v[i] == ' ')
			i++;
		t[k++] = '.';
	}
	if (parts < 2 || k == 0 || t[k - 1] == '.')
		return strlen(v);
	t[k] = '\0';
	memcpy(v, t, k + 1);
	return k;
}

size_t keyfact_norm(const char *name, const uint8_t *p, size_t n, char *out, size_t cap)
{
	static const char *const cc[] = {"cc", NULL};
	static const char *const cuda[] = {"torch_cuda", "nvcc_cuda", "driver_cuda", "runtime_cuda",
					   NULL};
	static const char *const major[] = {"gcc", NULL};
	size_t k;

	if (!cap)
		return 0;
	k = clean(p, n, out, cap);
	if (is_name(name, cc))
		return norm_cc(out, cap);
	if (is_name(name, cuda))
		return norm_cuda(out, cap);
	if (is_name(name, major))
		return norm_major(out);
	if (!strcmp(name, "soname")) {
		/* "libcudnn_cnn_infer.so.8." at a sentence's end: no soname ends in '.' */
		while (k && out[k - 1] == '.')
			out[--k] = '\0';
		return k;
	}
	return k < XS_TUPLE_MAX ? norm_tuple(out) : k;
}

static int is_major_minor(const char *v)
{
	size_t k = 0;

	while (isdigit((unsigned char)v[k]))
		k++;
	if (!k || k > 2 || v[k] != '.' || !isdigit((unsigned char)v[k + 1]))
		return 0;
	k += 2;
	while (isdigit((unsigned char)v[k]))
		k++;
	return v[k] == '\0';
}

int keyfact_canonical(const char *name, const char *v)
{
	static const char *const xy[] = {"cc",		"torch_cuda",	"nvcc_cuda",
					 "driver_cuda", "runtime_cuda", NULL};

	return is_name(name, xy) ? is_major_minor(v) : 1;
}

/* a Hub repo id is "name" or "org/name": neither a local directory given where a
 * model id goes (vLLM's --model /models/x/, from_pretrained("./ckpt")) nor an
 * option (vllm serve --help) is one */
static int is_repo_id(const char *v)
{
	const char *slash = strchr(v, '/');

	if (!*v || *v == '/' || *v == '.' || *v == '~' || *v == '-')
		return 0;
	if (!slash)
		return 1;
	return slash[1] != '\0' && !strchr(slash + 1, '/');
}

int keyfact_context(const char *name, const uint8_t *p, size_t n, int bare_int, char *out,
		    size_t cap)
{
	/* a bare "45" (an nvidia-smi csv's temperature column) is no compute
	 * capability: every shape that gives one around a diagnosis writes it
	 * X.Y, sm_XY / compute_XY or torch's tuple (X, Y), unless the pattern
	 * types it {cc:int} */
	if (!bare_int && !strcmp(name, "cc") && !memchr(p, '.', n) && !memchr(p, ',', n) &&
	    !(n > 2 && (*p == 's' || *p == 'c')))
		return 0;
	keyfact_norm(name, p, n, out, cap);
	if (!strcmp(name, "repo") && !is_repo_id(out))
		return 0;
	return keyfact_canonical(name, out);
}
