/* compose: see compose.h. What a service's GPU request does is the
 * daemon's: moby daemon/devices.go picks a device driver by the request's
 * capabilities (the nvidia driver claims gpu, nvidia, compute, compat32,
 * graphics, utility, video, display), daemon/nvidia_linux.go refuses count
 * with device_ids and sets NVIDIA_DRIVER_CAPABILITIES to the NVIDIA
 * capabilities asked for; Compose (docs.docker.com/compose/how-tos/
 * gpu-support/) requires capabilities and takes all GPUs when count and
 * device_ids are unset. The toolkit's variables are judged by check/image.c
 * on the image's ENV (data/base_image_env.tsv) with the service's
 * environment over it. */
#include "check/dockerfile/compose.h"

#include <stdio.h>
#include <string.h>

#include "check/dockerfile/df_int.h"
#include "check/image.h"
#include "core/str.h"
#include "format/compose.h"
#include "kb/dfrules.h"

struct cc {
	const struct cmp_file *f;
	const struct dfc_opts *o;
	struct cd_findings *out;
	struct cd_arena *a;
};

/* What a service asks of GPUs. */
struct svc {
	const struct cmp_service *s;
	struct img_info img;
	int img_known;
	const char *intent;    /* why it looks like it needs a GPU ("its image"); NULL */
	const char *intent_ev; /* the evidence of it */
	unsigned intent_line;
	int requested;	       /* a device request, gpus: or runtime: nvidia */
	int caps_from_request; /* a request sets NVIDIA_DRIVER_CAPABILITIES */
};

static const char *const nv_driver_caps[] = {"compute", "compat32", "graphics",
					     "utility", "video",    "display"};

static int is_driver_cap(const char *c)
{
	size_t i;

	for (i = 0; i < sizeof(nv_driver_caps) / sizeof(nv_driver_caps[0]); i++)
		if (!strcmp(c, nv_driver_caps[i]))
			return 1;
	return 0;
}

static int nvidia_claims(const char *c)
{
	return !strcmp(c, "gpu") || !strcmp(c, "nvidia") || is_driver_cap(c);
}

static struct cd_finding *at(struct cc *c, struct cd_finding *x, const struct cmp_service *s,
			     unsigned line, const char *what)
{
	struct dfrule r;

	if (!x)
		return NULL;
	finding_at(x, c->o->path, line ? line : s->line, line ? line : s->line);
	finding_evidence(x, c->a, "%s:%u: service %s%s%s", c->o->path, line ? line : s->line,
			 s->name, what ? ": " : "", what ? what : "");
	if (dfrules_find(x->id, &r) == 0)
		finding_evidence(x, c->a, "documented at: %s", r.source);
	return x;
}

static int digits(const char *v)
{
	size_t i;

	for (i = 0; v[i]; i++)
		if (v[i] < '0' || v[i] > '9')
			return 0;
	return i > 0 && i < 10;
}

static void gpu_words(struct svc *v)
{
	static const char *const serve[] = {"vllm serve", "vllm.entrypoints",
					    "sglang.launch_server", "text-generation-launcher",
					    "--tensor-parallel-size"};
	const struct cmp_str *cmd[2] = {&v->s->command, &v->s->entrypoint};
	size_t i, k;

	for (k = 0; k < 2 && !v->intent; k++) {
		if (!cmd[k]->v)
			continue;
		for (i = 0; i < sizeof(serve) / sizeof(serve[0]); i++)
			if (!v->intent && strstr(cmd[k]->v, serve[i])) {
				v->intent = "its command serves a model";
				v->intent_ev = serve[i];
				v->intent_line = cmd[k]->line;
			}
		if (!v->intent && dfc_trains(cmd[k]->v)) {
			v->intent = "its command trains";
			v->intent_ev = "a training launcher";
			v->intent_line = cmd[k]->line;
		}
	}
}

static void classify(struct cc *c, struct svc *v)
{
	static const char *const vars[] = {"NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES",
					   "CUDA_VISIBLE_DEVICES"};
	const struct cmp_service *s = v->s;
	size_t i, k;

	if (s->image.v && !s->image.unknown && images_lookup(s->image.v, &v->img) == 0)
		v->img_known = 1;
	if (v->img_known && v->img.gpu) {
		v->intent = "its image is a GPU image";
		v->intent_ev = "a GPU image in data/base_images.tsv";
		v->intent_line = s->image.line;
	}
	for (i = 0; !v->intent && i < sizeof(vars) / sizeof(vars[0]); i++) {
		const struct cmp_env *e = compose_env(s, vars[i]);
		if (!e || !e->value.v || e->value.unknown || !*e->value.v ||
		    !strcmp(e->value.v, "void") || !strcmp(e->value.v, "none") ||
		    !strcmp(e->value.v, "-1"))
			continue;
		v->intent = arena_printf(c->a, "it sets %s", vars[i]);
		v->intent_ev = arena_printf(c->a, "%s=%s", vars[i], e->value.v);
		v->intent_line = e->value.line;
	}
	if (!v->intent)
		gpu_words(v);
	v->requested = s->n_devices > 0 || (s->runtime.v && !strcmp(s->runtime.v, "nvidia"));
	for (i = 0; i < s->n_devices; i++)
		for (k = 0; k < s->devices[i].n_caps; k++)
			if (!s->devices[i].caps[k].unknown &&
			    is_driver_cap(s->devices[i].caps[k].v))
				v->caps_from_request = 1;
}

static void unreserved(struct cc *c, const struct svc *v)
{
	const struct cmp_service *s = v->s;
	struct cd_finding *x;

	if (!v->intent || v->requested)
		return;
	x = at(c,
	       findings_add(c->out, "compose-gpu-unreserved", CD_SEV_WARNING, "compose",
			    "Service %s requests no GPU, but %s", s->name, v->intent),
	       s, s->line, NULL);
	if (!x)
		return;
	finding_detail(x, c->a,
		       "Compose gives a service GPUs only through deploy.resources.reservations."
		       "devices (capabilities: [gpu]), gpus:, or runtime: nvidia; without one the "
		       "container sees no GPU and CUDA reports no device (NVIDIA_VISIBLE_DEVICES "
		       "in the environment does nothing under the default runtime, unless the "
		       "daemon's default-runtime is nvidia).");
	if (v->intent_line && v->intent_line != s->line)
		finding_evidence(x, c->a, "%s:%u: %s", c->o->path, v->intent_line,
				 v->intent_ev ? v->intent_ev : v->intent);
	finding_fix(x, c->a,
		    "%s:  deploy: {resources: {reservations: {devices: [{driver: nvidia, count: "
		    "all, capabilities: [gpu]}]}}}",
		    s->name);
}

static void invalid(struct cc *c, const struct cmp_service *s, const struct cmp_device *d,
		    const char *what, const char *detail)
{
	struct cd_finding *x =
		at(c,
		   findings_add(c->out, "compose-gpu-request-invalid", CD_SEV_ERROR, "compose",
				"Service %s: the GPU request %s", s->name, what),
		   s, d->line, d->from_gpus ? "gpus" : "deploy.resources.reservations.devices");

	if (!x)
		return;
	finding_detail(x, c->a, "%s", detail);
	finding_fix(x, c->a,
		    "devices: [{driver: nvidia, count: all, capabilities: [gpu]}]   # "
		    "or device_ids: [\"0\"] without count");
}

static void device_checks(struct cc *c, const struct svc *v, const struct cmp_device *d)
{
	const struct cmp_service *s = v->s;
	const char *count = d->count.v && !d->count.unknown ? d->count.v : NULL;
	char caps[256] = "";
	int caps_known = 1, any_nv = 0, compute = 0, drv_caps = 0;
	size_t i;

	for (i = 0; i < d->n_caps; i++) {
		if (d->caps[i].unknown) {
			caps_known = 0;
			continue;
		}
		any_nv |= nvidia_claims(d->caps[i].v);
		compute |= !strcmp(d->caps[i].v, "compute");
		drv_caps |= is_driver_cap(d->caps[i].v);
		if (strlen(caps) + strlen(d->caps[i].v) + 2 < sizeof(caps))
			snprintf(caps + strlen(caps), sizeof(caps) - strlen(caps), "%s%s",
				 caps[0] ? " " : "", d->caps[i].v);
	}
	if (!d->from_gpus && (!d->caps_set || !d->n_caps)) {
		invalid(c, s, d, "has no capabilities",
			"Compose requires capabilities on a device reservation (capabilities: "
			"[gpu]) and returns an error when the service is deployed without it.");
		return;
	}
	if (d->count.v && d->ids_set) {
		invalid(c, s, d, "sets both count and device_ids",
			"count and device_ids are mutually exclusive: the daemon refuses the "
			"container with \"cannot set both Count and DeviceIDs on device "
			"request\".");
		return;
	}
	if (count && strcmp(count, "all") && !digits(count)) {
		char t[160];
		snprintf(t, sizeof(t), "has count: %s", count);
		invalid(c, s, d, t,
			"count is an integer or the value all (all GPUs, also the default when "
			"count and device_ids are unset).");
		return;
	}
	if (count && digits(count) && strspn(count, "0") == strlen(count)) {
		invalid(c, s, d, "has count: 0 and reserves no GPU",
			"A request of count 0 selects no device: the daemon adds no GPU to the "
			"container.");
		return;
	}
	if (caps_known && !any_nv && (!d->driver.v || (!d->driver.unknown && !*d->driver.v))) {
		char t[320];
		snprintf(t, sizeof(t), "asks for capabilities [%s] that no GPU driver offers",
			 caps);
		invalid(c, s, d, t,
			"Without a driver the daemon picks the device driver whose capabilities "
			"include all those asked for; NVIDIA's offers gpu, nvidia, compute, "
			"compat32, "
			"graphics, utility, video and display. Otherwise it fails with \"could not "
			"select device driver \"\" with capabilities: [[...]]\".");
		return;
	}
	if (caps_known && drv_caps && !compute) {
		struct cd_finding *x =
			at(c,
			   findings_add(c->out, "compose-gpu-no-compute", CD_SEV_WARNING, "compose",
					"Service %s: the GPU request's capabilities [%s] leave out "
					"compute",
					s->name, caps),
			   s, d->line, NULL);
		if (x) {
			finding_detail(
				x, c->a,
				"The daemon sets NVIDIA_DRIVER_CAPABILITIES to the NVIDIA "
				"capabilities the request names, over the image's value: "
				"without compute the toolkit mounts no libcuda.so.1 and CUDA "
				"does not initialise (gpu alone keeps the image's default, "
				"utility,compute; Docker's CDI injection, where enabled, "
				"ignores the list).");
			finding_fix(x, c->a, "capabilities: [gpu, compute, utility]");
		}
	}
	if (c->o->host && c->o->host->n_gpus >= 0) {
		int64_t have = c->o->host->n_gpus;
		const char *bad = NULL;
		int n;
		if (count && digits(count) && str_to_int(count, 0, 1 << 20, &n) == 0 && n > have)
			bad = count;
		for (i = 0; !bad && i < d->n_ids; i++)
			if (!d->ids[i].unknown && digits(d->ids[i].v) &&
			    str_to_int(d->ids[i].v, 0, 1 << 20, &n) == 0 && n >= have)
				bad = d->ids[i].v;
		if (bad) {
			struct cd_finding *x = at(
				c,
				findings_add(c->out, "compose-gpu-count-exceeds", CD_SEV_ERROR,
					     "compose",
					     "Service %s asks for %s %s; this host has %lld GPU%s",
					     s->name, count == bad ? "count" : "GPU", bad,
					     (long long)have, have == 1 ? "" : "s"),
				s, count == bad ? d->count.line : d->line, NULL);
			if (x) {
				finding_detail(
					x, c->a,
					"The daemon turns count N into the device indexes 0 to "
					"N-1 and passes device_ids as they are; the NVIDIA "
					"runtime refuses an index the host does not have, so "
					"the container does not start.");
				finding_evidence(x, c->a, "%s", c->o->host->source);
				finding_fix(x, c->a, "count: all   # or at most %lld",
					    (long long)have);
			}
		}
	}
}

static void shm(struct cc *c, const struct svc *v)
{
	const struct cmp_service *s = v->s;
	const struct cmp_str *cmd = s->command.v ? &s->command : &s->entrypoint;
	struct cd_finding *x;

	if (!cmd->v || !dfc_trains(cmd->v) || s->shm_size.v ||
	    (s->ipc.v && !strcmp(s->ipc.v, "host")))
		return;
	x = at(c,
	       findings_add(c->out, "compose-shm-small", CD_SEV_INFO, "compose",
			    "Service %s trains with Docker's 64 MB /dev/shm", s->name),
	       s, cmd->line, NULL);
	if (!x)
		return;
	finding_detail(x, c->a,
		       "Without shm_size or ipc: host the container gets 64 MB of /dev/shm; "
		       "PyTorch DataLoader workers and NCCL pass data through it and fail with "
		       "\"Bus error\" or \"No space left on device\".");
	finding_fix(x, c->a, "%s:  shm_size: 16gb   # or ipc: host", s->name);
}

/* The image's ENV with the service's environment over it; *where gets the
 * line that set each toolkit variable (0: the image). */
static void env_of(struct cc *c, const struct svc *v, struct dfenv *env, int *known)
{
	const struct cmp_service *s = v->s;
	size_t i;

	dfenv_init(env);
	*known =
		v->img_known && v->img.matched &&
		(!strcmp(v->img.env_set, "nvidia-cuda") || !strncmp(v->img.env_set, "pytorch-", 8));
	if (*known && images_env(&v->img, c->o->arch, env, c->a))
		*known = 0; /* the image's ENV is not known after all */
	/* A full environment (DFENV_MAX, 256) leaves the service's later variables
	 * out; an image family brings a dozen. */
	for (i = 0; i < s->n_env; i++)
		if (s->env[i].value.v && !s->env[i].value.unknown)
			(void)!dfenv_set(env, s->env[i].name, s->env[i].value.v);
}

static void place_env(struct cc *c, const struct svc *v, struct cd_finding *x, const char *var)
{
	const struct cmp_env *e = var ? compose_env(v->s, var) : NULL;

	if (!x)
		return;
	if (e && e->value.v) {
		at(c, x, v->s, e->value.line, var);
		return;
	}
	at(c, x, v->s, v->s->image.line, NULL);
	if (var)
		finding_evidence(x, c->a, "%s comes from the image %s (data/base_image_env.tsv)",
				 var, v->s->image.v ? v->s->image.v : "?");
}

/* A variable the shell or an env_file sets: its value cannot be told. */
static int unknowable(const struct svc *v, const char *var)
{
	const struct cmp_env *e = compose_env(v->s, var);

	return e ? !e->value.v || e->value.unknown : v->s->env_file;
}

static void toolkit_vars(struct cc *c, const struct svc *v)
{
	struct dfenv env;
	struct image_env e;
	struct image_host h, *hp = NULL;
	int known;

	if (!v->requested && !v->intent)
		return;
	env_of(c, v, &env, &known);
	image_env_read(&env, &e);
	if (c->o->host) {
		h.driver = c->o->host->driver;
		h.cuda = c->o->host->cuda;
		h.brand = c->o->host->brand;
		h.source = c->o->host->source;
		hp = &h;
	}
	if (!v->caps_from_request && !unknowable(v, "NVIDIA_DRIVER_CAPABILITIES"))
		place_env(c, v, image_check_capabilities(&e, c->out), "NVIDIA_DRIVER_CAPABILITIES");
	if (!unknowable(v, "NVIDIA_DISABLE_REQUIRE"))
		place_env(c, v, image_check_disable_require(&e, hp, c->out),
			  "NVIDIA_DISABLE_REQUIRE");
	if (hp && v->requested && (known || e.n_require) &&
	    !unknowable(v, "NVIDIA_DISABLE_REQUIRE"))
		place_env(c, v, image_check_require(&e, hp, c->out),
			  e.n_require ? e.require_name[0] : "CUDA_VERSION");
}

static const char *gpus_text(struct cc *c, const struct cmp_service *s)
{
	const struct cmp_device *d;

	if (!s->n_devices)
		return s->runtime.v && !strcmp(s->runtime.v, "nvidia") ? "runtime: nvidia" : NULL;
	d = &s->devices[0];
	if (d->ids_set && d->n_ids) {
		char ids[128] = "";
		size_t i;
		for (i = 0; i < d->n_ids && strlen(ids) + strlen(d->ids[i].v) + 2 < sizeof(ids);
		     i++)
			snprintf(ids + strlen(ids), sizeof(ids) - strlen(ids), "%s%s", i ? "," : "",
				 d->ids[i].v);
		return arena_printf(c->a, "%s: device_ids %s", d->from_gpus ? "gpus" : "deploy",
				    ids);
	}
	return arena_printf(c->a, "%s: count %s", d->from_gpus ? "gpus" : "deploy",
			    d->count.v ? d->count.v : "all");
}

static size_t drop_ignored(const struct cmp_file *f, struct cd_findings *out, size_t from)
{
	size_t i, k = from, dropped = 0, j;

	for (i = from; i < out->n; i++) {
		struct cd_finding *x = out->items[i];
		const struct cmp_service *s = NULL;
		for (j = 0; j < f->n; j++) /* the service whose span holds the line */
			if (f->services[j].line <= x->line && (!s || f->services[j].line > s->line))
				s = &f->services[j];
		if (compose_ignored(f, s, x->line, x->id)) {
			dropped++;
			continue;
		}
		out->items[k++] = x;
	}
	out->n = k;
	return dropped;
}

int check_compose_file(const char *path, const uint8_t *p, size_t n, const struct dfc_opts *o,
		       struct cd_findings *out, struct dfc_report *rep, struct cd_err *err)
{
	struct cmp_file f;
	struct cc c;
	size_t i, k, first = out->n;
	int rc;

	memset(rep, 0, sizeof(*rep));
	rep->path = path;
	rep->compose = 1;
	rep->host = o->host;
	if ((rc = compose_parse(p, n, out->arena, &f, err)))
		return rc;
	c.f = &f;
	c.o = o;
	c.out = out;
	c.a = out->arena;
	rep->services = arena_calloc(c.a, f.n ? f.n : 1, sizeof(*rep->services));
	if (!rep->services)
		return err_set(err, CD_ENOMEM, "out of memory");
	for (i = 0; i < f.n; i++) {
		struct svc v;
		struct dfc_service_view *sv = &rep->services[rep->n_services++];
		memset(&v, 0, sizeof(v));
		v.s = &f.services[i];
		classify(&c, &v);
		unreserved(&c, &v);
		for (k = 0; k < v.s->n_devices; k++)
			device_checks(&c, &v, &v.s->devices[k]);
		shm(&c, &v);
		toolkit_vars(&c, &v);
		sv->name = v.s->name;
		sv->line = v.s->line;
		sv->image = v.s->image.v;
		sv->build =
			v.s->has_build ? (v.s->build_context.v ? v.s->build_context.v : ".") : NULL;
		sv->gpus = gpus_text(&c, v.s);
		sv->gpu_image = v.img_known && v.img.gpu;
	}
	rep->n_ignored = drop_ignored(&f, out, first);
	findings_sort_located(out);
	return 0;
}
