/* outfile: see outfile.h. */
#include "core/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/str.h"

int outfile_open(struct cd_outfile *o, const char *path, struct cd_err *err)
{
	struct stat st;
	int fd;

	memset(o, 0, sizeof(*o));
	o->fp = stdout;
	if (!path || !strcmp(path, "-"))
		return 0;
	if (str_copy(o->path, sizeof(o->path), path) >= sizeof(o->path) ||
	    snprintf(o->tmp, sizeof(o->tmp), "%s.tmp", path) >= (int)sizeof(o->tmp))
		return err_set(err, CD_ERANGE, "%s: path too long", path);
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return err_set(err, CD_EIO,
			       "%s: not a regular file (-o replaces the file it names)", path);
	fd = open(o->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return err_set(err, CD_EIO, "%s: %s", o->tmp, strerror(errno));
	o->fp = fdopen(fd, "w");
	if (!o->fp) {
		int e = errno;
		close(fd);
		unlink(o->tmp);
		o->fp = stdout;
		return err_set(err, CD_EIO, "%s: %s", o->tmp, strerror(e));
	}
	o->is_file = 1;
	return 0;
}

int outfile_commit(struct cd_outfile *o, struct cd_err *err)
{
	int bad;

	if (!o->is_file)
		return fflush(stdout) ? err_set(err, CD_EIO, "stdout: %s", strerror(errno)) : 0;
	bad = fflush(o->fp) || ferror(o->fp) || fsync(fileno(o->fp));
	if (bad) {
		int e = errno;
		outfile_abort(o);
		return err_set(err, CD_EIO, "%s: %s", o->tmp, strerror(e));
	}
	o->is_file = 0;
	if (fclose(o->fp) || rename(o->tmp, o->path)) {
		int e = errno;
		unlink(o->tmp);
		o->fp = stdout;
		return err_set(err, CD_EIO, "%s: %s", o->path, strerror(e));
	}
	o->fp = stdout;
	return 0;
}

void outfile_abort(struct cd_outfile *o)
{
	if (!o->is_file)
		return;
	fclose(o->fp);
	unlink(o->tmp);
	o->is_file = 0;
	o->fp = stdout;
}
