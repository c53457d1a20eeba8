/* Unit tests for src/probe/system/collect under a temporary root: the NVRM
 * and Xid lines of a syslog file (the last COL_KLOG_LINES), dpkg's status,
 * the kernel module's version, and nvidia-smi never run under --root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/opts.h"
#include "facts/facts.h"
#include "probe/system/collect.h"

static char dir[64];

static void put(const char *rel, const char *text)
{
	char path[256], cmd[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s%s", dir, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/cd-collect-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void under_root(struct cd_facts *f, struct cd_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->root = dir;
	o->timeout_ms = 1000;
	facts_init(f, o);
	assert_int_equal(root_init(&f->root, dir, NULL), 0);
}

static void kernel_log_lines(void **state)
{
	struct cd_facts f;
	struct cd_opts o;
	struct col_text t;
	struct cd_buf big;
	int i;

	(void)state;
	put("/var/log/kern.log",
	    "Jan 1 host kernel: usb 1-1: new device\n"
	    "Jan 1 host kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has "
	    "fallen off the bus.\n"
	    "Jan 1 host kernel: eth0: link up\n"
	    "Jan 1 host kernel: NVRM: loading NVIDIA UNIX x86_64 Kernel Module\n");
	under_root(&f, &o);
	col_kernel_log(&f, &t);
	assert_true(t.present);
	assert_string_equal(t.text.p,
			    "Jan 1 host kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has "
			    "fallen off the bus.\n"
			    "Jan 1 host kernel: NVRM: loading NVIDIA UNIX x86_64 Kernel Module\n");
	assert_string_equal(t.status, "/var/log/kern.log: 2 NVRM/Xid lines");
	col_text_free(&t);
	buf_init(&big, 0);
	for (i = 0; i < COL_KLOG_LINES + 5; i++)
		assert_int_equal(buf_printf(&big, "NVRM: line %d\n", i), 0);
	put("/var/log/kern.log", big.p);
	col_kernel_log(&f, &t);
	assert_int_equal(strncmp(t.text.p, "NVRM: line 5\n", 13), 0);
	col_text_free(&t);
	buf_free(&big);
	facts_free(&f);
}

/* A syslog file longer than COL_KLOG_TAIL: the line the tail begins inside goes. */
static void kernel_log_tail_starts_at_a_line(void **state)
{
	struct cd_facts f;
	struct cd_opts o;
	struct col_text t;
	char path[256];
	FILE *fp;

	(void)state;
	put("/var/log/kern.log", "");
	snprintf(path, sizeof(path), "%s/var/log/kern.log", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("0123456789 the tail starts inside this line: NVRM\n", fp);
	assert_int_equal(fseek(fp, (long)COL_KLOG_TAIL, SEEK_SET), 0); /* a sparse hole */
	fputs("\nNVRM: the last line\n", fp);
	fclose(fp);
	under_root(&f, &o);
	col_kernel_log(&f, &t);
	assert_string_equal(t.text.p, "NVRM: the last line\n");
	col_text_free(&t);
	facts_free(&f);
}

static void dpkg_and_version(void **state)
{
	struct cd_facts f;
	struct cd_opts o;
	struct col_text t;

	(void)state;
	put("/var/lib/dpkg/status", "Package: cuda-nvcc-12-4\nStatus: install ok installed\n"
				    "Architecture: amd64\nVersion: 12.4.131-1\n\n");
	put("/proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX Open Kernel Module  580.1\n");
	under_root(&f, &o);
	col_dpkg(&f, &t);
	assert_string_equal(t.text.p, "cuda-nvcc-12-4\tamd64\t12.4.131-1\n");
	assert_string_equal(t.status, "/var/lib/dpkg/status: 1 installed packages");
	col_text_free(&t);
	col_proc_version(&f, &t);
	assert_true(t.present);
	assert_string_equal(t.status, "/proc/driver/nvidia/version");
	col_text_free(&t);
	col_nvidia_smi(&f, &t);
	assert_false(t.present);
	assert_string_equal(t.status, "not run: --root names an image");
	col_text_free(&t);
	facts_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kernel_log_lines),
		cmocka_unit_test(kernel_log_tail_starts_at_a_line),
		cmocka_unit_test(dpkg_and_version),
	};
	return cmocka_run_group_tests_name("collect", tests, setup, teardown);
}
