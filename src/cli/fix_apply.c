/* fix_apply: see fix_int.h. The backup folder sits beside the extensions
 * cache ("<cache>.cuda-doctor-backup-YYYYMMDD-HHMMSS", UTC), on the same
 * filesystem, so every move is one rename(2). cuda-doctor.env is written to
 * a temporary file (O_EXCL) and renamed into place; an older one is kept as
 * cuda-doctor.env.YYYYMMDD-HHMMSS. Under --root every path is the root's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/fix_int.h"
#include "core/buf.h"
#include "core/fsutil.h"
#include "core/str.h"

#define MOVES_MAX 128

struct move {
	char from[PATH_MAX], to[PATH_MAX]; /* host paths */
	int done;
};

struct job {
	const struct fix_apply_opts *o;
	struct move moves[MOVES_MAX];
	size_t n_moves;
	const char *env[PLAN_STEPS_MAX * PLAN_ENV_MAX];
	size_t n_env;
	char backup[PATH_MAX]; /* host path; "" when nothing moves */
	char stamp[32];
	int made_backup;
	char kept_env[PATH_MAX]; /* an older cuda-doctor.env moved aside */
};

/* ---- questions ---------------------------------------------------------------- */

static int yes(const struct fix_apply_opts *o, const char *q, size_t step)
{
	char line[64];

	if (o->yes)
		return 1;
	fprintf(o->ask, "step %zu: %s? [y/N] ", step, q);
	fflush(o->ask);
	if (!o->in || !fgets(line, sizeof(line), o->in)) {
		fprintf(o->ask, "\n");
		return 0;
	}
	return line[0] == 'y' || line[0] == 'Y';
}

/* ---- what to do ----------------------------------------------------------------- */

/* The path of p relative to the cache root, or NULL when it is not inside. */
static const char *inside(const char *root, const char *p)
{
	size_t n = strlen(root);

	if (strncmp(p, root, n) || p[n] != '/' || !p[n + 1])
		return NULL;
	return p + n + 1;
}

static int add_moves(struct job *j, const struct cd_facts *f, const struct cd_jit_facts *jf,
		     const struct plan_step *s)
{
	char root[PATH_MAX];
	size_t i;

	if (!jf || !jf->cache.root || root_host_path(&f->root, jf->cache.root, root, sizeof(root)))
		return 0;
	if (!j->backup[0] &&
	    (size_t)snprintf(j->backup, sizeof(j->backup), "%s.cuda-doctor-backup-%s", root,
			     j->stamp) >= sizeof(j->backup)) {
		j->backup[0] = '\0';
		return 0;
	}
	for (i = 0; i < s->n_moves && j->n_moves < MOVES_MAX; i++) {
		struct move *m = &j->moves[j->n_moves];
		const char *rel = inside(jf->cache.root, s->moves[i].path);
		if (!rel || root_entry_path(&f->root, s->moves[i].path, m->from, sizeof(m->from)) ||
		    fsu_join(m->to, sizeof(m->to), j->backup, rel))
			continue;
		m->done = 0;
		j->n_moves++;
	}
	return 0;
}

static void choose(struct job *j, const struct cd_facts *f, const struct cd_jit_facts *jf,
		   const struct cd_plan *p)
{
	char q[256];
	size_t i, k;

	for (i = 0; i < p->n; i++) {
		const struct plan_step *s = &p->steps[i];
		if (s->n_moves) {
			snprintf(q, sizeof(q), "move %zu item%s of the extensions cache (%s) aside",
				 s->n_moves, s->n_moves == 1 ? "" : "s", s->title ? s->title : "");
			if (yes(j->o, q, i + 1))
				add_moves(j, f, jf, s);
		}
		if (s->n_env) {
			snprintf(q, sizeof(q), "write %s%s into %s", s->env[0],
				 s->n_env > 1 ? " (and more)" : "", j->o->env_file);
			if (yes(j->o, q, i + 1))
				for (k = 0; k < s->n_env; k++)
					j->env[j->n_env++] = s->env[k];
		}
	}
}

/* ---- checks before anything moves ------------------------------------------- */

static int parent_writable(const char *path, char *why, size_t cap)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash)
		str_copy(dir, sizeof(dir), ".");
	else
		str_ncopy(dir, sizeof(dir), path, slash == path ? 1 : (size_t)(slash - path));
	if (access(dir, W_OK) == 0)
		return 0;
	snprintf(why, cap, "%s is not writable (%s)", dir, strerror(errno));
	return -1;
}

static int preflight(struct job *j)
{
	char why[PATH_MAX + 64];
	struct stat st;
	size_t i;

	for (i = 0; i < j->n_moves; i++)
		if (lstat(j->moves[i].from, &st)) {
			fprintf(j->o->ask, "cuda-doctor fix: %s is gone (%s); nothing was moved\n",
				j->moves[i].from, strerror(errno));
			return -1;
		}
	if ((j->n_moves && parent_writable(j->backup, why, sizeof(why))) ||
	    (j->n_env && parent_writable(j->o->env_file, why, sizeof(why)))) {
		fprintf(j->o->ask, "cuda-doctor fix: %s; nothing was changed\n", why);
		return -1;
	}
	if (j->n_moves && lstat(j->backup, &st) == 0) {
		fprintf(j->o->ask, "cuda-doctor fix: %s already exists; nothing was moved\n",
			j->backup);
		return -1;
	}
	return 0;
}

/* ---- doing it ----------------------------------------------------------------- */

/* mkdir -p of the folders of path below the backup folder. */
static int parents(const struct job *j, const char *path)
{
	char d[PATH_MAX];
	size_t n = strlen(j->backup), i;

	str_copy(d, sizeof(d), path);
	for (i = n + 1; d[i]; i++) {
		if (d[i] != '/')
			continue;
		d[i] = '\0';
		if (mkdir(d, 0700) && errno != EEXIST)
			return -1;
		d[i] = '/';
	}
	return 0;
}

static void undo_moves(struct job *j)
{
	size_t i;

	for (i = j->n_moves; i-- > 0;)
		if (j->moves[i].done && rename(j->moves[i].to, j->moves[i].from) == 0)
			j->moves[i].done = 0;
}

static int do_moves(struct job *j)
{
	size_t i;

	if (!j->n_moves)
		return 0;
	if (mkdir(j->backup, 0700)) {
		fprintf(j->o->ask, "cuda-doctor fix: cannot create %s: %s; nothing was moved\n",
			j->backup, strerror(errno));
		return -1;
	}
	j->made_backup = 1;
	for (i = 0; i < j->n_moves; i++) {
		struct move *m = &j->moves[i];
		if (parents(j, m->to) || rename(m->from, m->to)) {
			fprintf(j->o->ask,
				"cuda-doctor fix: cannot move %s: %s; the moves done are undone\n",
				m->from, strerror(errno));
			undo_moves(j);
			return -1;
		}
		m->done = 1;
	}
	return 0;
}

static int write_env(struct job *j)
{
	char tmp[PATH_MAX];
	struct stat st;
	struct cd_buf b;
	size_t i;
	int fd, rc = -1;

	if (!j->n_env)
		return 0;
	buf_init(&b, 0);
	rc = buf_printf(&b,
			"# written by cuda-doctor fix --apply (%s UTC); use it with: . ./%s\n"
			"# undo: remove this file (and open a new shell)\n",
			j->stamp, j->o->env_file);
	for (i = 0; !rc && i < j->n_env; i++)
		rc = buf_printf(&b, "%s\n", j->env[i]);
	if (rc) { /* a file cut short would lose settings: none is written */
		fprintf(j->o->ask, "cuda-doctor fix: cannot write %s: %s\n", j->o->env_file,
			err_name(rc));
		buf_free(&b);
		return -1;
	}
	rc = -1;
	snprintf(tmp, sizeof(tmp), "%s.tmp-%ld", j->o->env_file, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, b.p, b.len) != (ssize_t)b.len || fsync(fd)) {
		fprintf(j->o->ask, "cuda-doctor fix: cannot write %s: %s\n", tmp, strerror(errno));
		goto out;
	}
	if (lstat(j->o->env_file, &st) == 0) {
		snprintf(j->kept_env, sizeof(j->kept_env), "%s.%s", j->o->env_file, j->stamp);
		if (rename(j->o->env_file, j->kept_env)) {
			fprintf(j->o->ask, "cuda-doctor fix: cannot keep the old %s: %s\n",
				j->o->env_file, strerror(errno));
			goto out;
		}
	}
	if (rename(tmp, j->o->env_file)) {
		fprintf(j->o->ask, "cuda-doctor fix: cannot write %s: %s\n", j->o->env_file,
			strerror(errno));
		if (j->kept_env[0])
			(void)rename(j->kept_env, j->o->env_file);
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (rc)
		(void)unlink(tmp); /* our own temporary file, never the person's */
	buf_free(&b);
	return rc;
}

/* 'p' quoted for a shell. */
static void sq(FILE *o, const char *p)
{
	fputc('\'', o);
	for (; *p; p++)
		if (*p == '\'')
			fputs("'\\''", o);
		else
			fputc(*p, o);
	fputc('\'', o);
}

static void report(const struct job *j)
{
	FILE *o = j->o->out;
	size_t i;
	int first = 1;

	if (!j->n_moves && !j->n_env) {
		fprintf(o, "\nNothing applied.\n");
		return;
	}
	fprintf(o, "\nApplied:\n");
	for (i = 0; i < j->n_moves; i++)
		fprintf(o, "  moved %s -> %s\n", j->moves[i].from, j->moves[i].to);
	if (j->n_env)
		fprintf(o, "  wrote %s: load it with  . ./%s\n", j->o->env_file, j->o->env_file);
	if (j->kept_env[0])
		fprintf(o, "  kept the previous one as %s\n", j->kept_env);
	fprintf(o, "undo: ");
	for (i = j->n_moves; i-- > 0; first = 0) {
		fprintf(o, "%smv -T ", first ? "" : " && ");
		sq(o, j->moves[i].to);
		fputc(' ', o);
		sq(o, j->moves[i].from);
	}
	if (j->n_moves) {
		fprintf(o, " && find ");
		sq(o, j->backup);
		fprintf(o, " -depth -type d -empty -delete");
		first = 0;
	}
	if (j->n_env) {
		fprintf(o, "%s%s ", first ? "" : " && ", j->kept_env[0] ? "mv -f" : "rm -f");
		if (j->kept_env[0]) {
			sq(o, j->kept_env);
			fputc(' ', o);
		}
		sq(o, j->o->env_file);
	}
	fprintf(o, "\n");
}

/* The backup folder's own (empty) folders, after the moves were undone: only
 * directories are removed, and rmdir fails on one that still holds a file. */
static void prune(const char *dir, int depth)
{
	char sub[PATH_MAX];
	struct dirent *e;
	struct stat st;
	DIR *d = depth < 64 ? opendir(dir) : NULL;

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!fsu_join(sub, sizeof(sub), dir, e->d_name) && lstat(sub, &st) == 0 &&
		    S_ISDIR(st.st_mode))
			prune(sub, depth + 1);
	}
	if (d)
		closedir(d);
	(void)rmdir(dir);
}

int fix_apply(const struct cd_facts *f, const struct cd_jit_facts *jf, const struct cd_plan *p,
	      const struct fix_apply_opts *o)
{
	static struct job j; /* 1 MiB of paths: not on the stack */
	struct tm tm;

	memset(&j, 0, sizeof(j));
	j.o = o;
	gmtime_r(&o->now, &tm);
	strftime(j.stamp, sizeof(j.stamp), "%Y%m%d-%H%M%S", &tm);
	choose(&j, f, jf, p);
	if (preflight(&j) || do_moves(&j))
		goto fail;
	if (write_env(&j)) {
		undo_moves(&j);
		goto fail;
	}
	report(&j);
	return 0;
fail:
	if (j.made_backup)
		prune(j.backup, 0); /* empty again after the moves were undone */
	return 1;
}
