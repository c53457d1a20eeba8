/* Unit tests for src/format/xidlog: Xid lines from /dev/kmsg records and
 * dmesg text, the PCI address forms, and lines that must not count. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "format/xidlog.h"

static int next(struct xidlog_reader *r, const char *s, struct xidlog_event *ev)
{
	if (s)
		xidlog_init(r, (const uint8_t *)s, strlen(s));
	return xidlog_next(r, ev);
}

static void kmsg_record(void **state)
{
	struct xidlog_reader r;
	struct xidlog_event ev;
	const char *log = "6,1234,5678901234,-;NVRM: loading NVIDIA UNIX x86_64 Kernel Module\n"
			  "4,1240,5678999000,-;NVRM: Xid (PCI:0000:18:00): 79, pid=1234, "
			  "name=python3, GPU has fallen off the bus.\n"
			  " SUBSYSTEM=pci\n"
			  " DEVICE=+pci:0000:18:00.0\n";

	(void)state;
	assert_int_equal(next(&r, log, &ev), 1);
	assert_int_equal(ev.xid, 79);
	assert_true(ev.ts_us == 5678999000LL);
	assert_string_equal(ev.pci, "0000:18:00");
	assert_string_equal(ev.text, "pid=1234, name=python3, GPU has fallen off the bus.");
	assert_int_equal(next(&r, NULL, &ev), 0);
	assert_int_equal(r.lines, 4);
	assert_int_equal(r.xids, 1);
}

static void dmesg_text(void **state)
{
	struct xidlog_reader r;
	struct xidlog_event ev;

	(void)state;
	assert_int_equal(next(&r,
			      "[ 1234.5] NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7194, "
			      "Contained: CE User Channel (0x9). RST: No, D-RST: No\r\n",
			      &ev),
			 1);
	assert_int_equal(ev.xid, 94);
	assert_true(ev.ts_us == 1234500000LL);
	assert_string_equal(ev.pci, "0000:01:00"); /* the MIG instance part dropped */
	assert_int_equal(next(&r, "NVRM: Xid (0000:3b:00): 13, Graphics Exception\n", &ev), 1);
	assert_int_equal(ev.xid, 13);
	assert_true(ev.ts_us == -1);
	assert_string_equal(ev.pci, "0000:3b:00");
	assert_string_equal(ev.text, "Graphics Exception");
}

static void not_xids(void **state)
{
	struct xidlog_reader r;
	struct xidlog_event ev;

	(void)state;
	assert_int_equal(next(&r, "NVRM: Xid (PCI:0000:18:00 no close paren 79\n", &ev), 0);
	assert_int_equal(next(&r, "NVRM: Xid (PCI:0000:18:00): , nothing\n", &ev), 0);
	assert_int_equal(next(&r, "NVRM: Xid (PCI:0000:18:00): 99999999999, big\n", &ev), 0);
	assert_int_equal(
		next(&r, "nvidia-smi: Xid 79 in a message that is not the driver's\n", &ev), 0);
	assert_int_equal(next(&r, "", &ev), 0);
	assert_int_equal(next(&r, "NVRM: Xid (", &ev), 0);
	/* control bytes in the text are replaced */
	assert_int_equal(next(&r, "NVRM: Xid (PCI:0000:18:00): 48, a\tb\x01", &ev), 1);
	assert_string_equal(ev.text, "a?b?");
}

static void pci_forms(void **state)
{
	unsigned d, b, v;

	(void)state;
	assert_int_equal(xidlog_pci("0000:18:00", &d, &b, &v), 0);
	assert_true(d == 0 && b == 0x18 && v == 0);
	assert_int_equal(xidlog_pci("00000001:2A:1f.0", &d, &b, &v), 0);
	assert_true(d == 1 && b == 0x2a && v == 0x1f);
	assert_int_equal(xidlog_pci("3b:00.0", &d, &b, &v), 0);
	assert_true(d == 0 && b == 0x3b && v == 0);
	assert_int_equal(xidlog_pci("GPU-I:05", &d, &b, &v), -1);
	assert_int_equal(xidlog_pci("", &d, &b, &v), -1);
	assert_int_equal(xidlog_pci("0000:18:00 x", &d, &b, &v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kmsg_record),
		cmocka_unit_test(dmesg_text),
		cmocka_unit_test(not_xids),
		cmocka_unit_test(pci_forms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
