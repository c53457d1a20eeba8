/* Unit tests for src/format/redact and src/kb/redactkb: every rule of
 * data/redact_rules.tsv against its own true-positive samples (the secret
 * between [[ and ]] must be gone) and false-positive samples (the text must
 * stay byte for byte), alone and with the whole set; then the engine itself:
 * consistent aliases, the ledger, pieces of any size, long lines, NUL bytes,
 * blocks, learned values, variables, and a rule that fails. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/str.h"
#include "format/redact.h"
#include "kb/kb.h"
#include "kb/redactkb.h"

#define SECRETS_MAX 8

/* One sample: its text (escapes decoded, markers removed) and its secrets. */
struct sample {
	char text[4096];
	size_t n;
	size_t n_sec;
	char sec[SECRETS_MAX][512];
};

static void parse_sample(const char *s, size_t len, struct sample *out)
{
	size_t i = 0, k = 0;
	int in = 0;

	memset(out, 0, sizeof(*out));
	while (i < len) {
		char c = s[i];
		if (!strncmp(s + i, "[[", 2) && !in) {
			in = 1, k = 0, i += 2;
			continue;
		}
		if (!strncmp(s + i, "]]", 2) && in) {
			in = 0, out->n_sec++, i += 2;
			continue;
		}
		if (c == '\\' && i + 1 < len && strchr("nt\\", s[i + 1])) {
			c = s[i + 1] == 'n' ? '\n' : s[i + 1] == 't' ? '\t' : '\\';
			i++;
		}
		i++;
		assert_true(out->n + 1 < sizeof(out->text));
		out->text[out->n++] = c;
		if (in) {
			assert_true(out->n_sec < SECRETS_MAX && k + 1 < sizeof(out->sec[0]));
			out->sec[out->n_sec][k++] = c;
		}
	}
	assert_false(in);
}

static void machine(struct rd_set *s)
{
	assert_int_equal(rd_set_value(s, "@host", "gpunode17"), 0);
	assert_int_equal(rd_set_value(s, "@user", "alice"), 0);
	assert_int_equal(rd_set_value(s, "@home", "/home/alice"), 0);
}

static struct rd_set *load(const char *only)
{
	struct rd_set *s = NULL;
	struct cd_err err = {0};

	if (redactkb_load_only(&s, only, &err))
		fail_msg("%s", err.msg);
	machine(s);
	return s;
}

static void redact(struct rd_set *s, const char *p, size_t n, struct cd_buf *out)
{
	struct cd_err err = {0};
	int m = rd_member(s, "sample");

	buf_init(out, 0);
	if (rd_text(s, m, p, n, out, &err))
		fail_msg("%s", err.msg);
}

static uint64_t hits(const struct rd_set *s, const char *rule)
{
	size_t i;

	for (i = 0; i < rd_rules(s); i++)
		if (!strcmp(rd_rule_name(s, i), rule))
			return rd_rule_hits(s, i);
	fail_msg("no rule %s", rule);
	return 0;
}

/* Each sample of one column, split at " || ". */
static size_t each_sample(const char *rule, const char *col, int tp, struct rd_set *all)
{
	const char *p = col, *sep;
	size_t n = 0, i;

	while (*p) {
		struct sample smp;
		struct rd_set *one = load(rule);
		struct cd_buf out;
		sep = strstr(p, " || ");
		parse_sample(p, sep ? (size_t)(sep - p) : strlen(p), &smp);
		redact(one, smp.text, smp.n, &out);
		if (tp) {
			if (hits(one, rule) == 0 ||
			    (out.len == smp.n && !memcmp(out.p, smp.text, smp.n)))
				fail_msg("%s: true positive not changed: %s", rule, smp.text);
			for (i = 0; i < smp.n_sec; i++)
				if (strstr(out.p, smp.sec[i]))
					fail_msg("%s: '%s' kept in: %s", rule, smp.sec[i], out.p);
			assert_true(smp.n_sec > 0);
			buf_free(&out);
			redact(all, smp.text, smp.n, &out); /* and with every rule */
			for (i = 0; i < smp.n_sec; i++)
				if (strstr(out.p, smp.sec[i]))
					fail_msg("%s: '%s' kept by the whole set: %s", rule,
						 smp.sec[i], out.p);
		} else if (hits(one, rule) || out.len != smp.n || memcmp(out.p, smp.text, smp.n)) {
			fail_msg("%s: false positive changed: '%s' -> '%s'", rule, smp.text, out.p);
		}
		buf_free(&out);
		rd_set_free(one);
		n++;
		p = sep ? sep + 4 : p + strlen(p);
	}
	return n;
}

static void every_rule_classifies_its_samples(void **state)
{
	struct kb_tsv *t = malloc(sizeof(*t));
	struct rd_set *all = load(NULL);
	size_t rules = 0, tp = 0, fp = 0, k;

	(void)state;
	assert_non_null(t);
	assert_int_equal(kb_tsv_open(t, REDACTKB_FILE), 0);
	while (kb_tsv_next(t)) {
		const char *name = kb_tsv_get(t, "name");
		k = each_sample(name, kb_tsv_get(t, "tp"), 1, all);
		if (!k)
			fail_msg("%s: no true-positive sample", name);
		tp += k;
		k = each_sample(name, kb_tsv_get(t, "fp"), 0, all);
		if (!k)
			fail_msg("%s: no false-positive sample", name);
		fp += k;
		assert_true(strlen(kb_tsv_get(t, "source")) > 10);
		rules++;
	}
	printf("redact: %zu rules, %zu true and %zu false positives\n", rules, tp, fp);
	assert_int_equal(rules, rd_rules(all));
	assert_true(rules >= 20 && tp >= 60 && fp >= 60);
	rd_set_free(all);
	free(t);
}

static void text_of(struct rd_set *s, const char *member, const char *in, struct cd_buf *out)
{
	struct cd_err err = {0};

	buf_init(out, 0);
	if (rd_text(s, rd_member(s, member), in, strlen(in), out, &err))
		fail_msg("%s", err.msg);
}

static void aliases_are_consistent_across_members(void **state)
{
	struct rd_set *s = load(NULL);
	struct cd_buf a, b;

	(void)state;
	text_of(s, "a.txt",
		"GPU-5a3e7f01-2b4c-4d6e-8f90-123456789abc "
		"GPU-00000000-1111-2222-3333-444444444444\n"
		"peer 10.0.0.7 and 10.0.0.8\n",
		&a);
	text_of(s, "b.txt", "GPU-5A3E7F01-2B4C-4D6E-8F90-123456789ABC at 10.0.0.8 on gpunode17\n",
		&b);
	assert_string_equal(a.p, "gpu-uuid-0 gpu-uuid-1\npeer ipv4-0 and ipv4-1\n");
	assert_string_equal(b.p, "gpu-uuid-0 at ipv4-1 on host0\n");
	assert_string_equal(rd_alias(s, 0, "host", "GPUNODE17"), "host0");
	assert_string_equal(rd_alias(s, 0, "host", "localhost"), "localhost");
	assert_string_equal(rd_alias(s, 0, "host", "ubuntu"), "ubuntu"); /* "Ubuntu 22.04" stays */
	assert_string_equal(rd_alias(s, 0, "gpu-uuid", "GPU-ffffffff-1111-2222-3333-444444444444"),
			    "gpu-uuid-2");
	assert_null(rd_alias(s, 0, "no-such-rule", "x"));
	buf_free(&a);
	buf_free(&b);
	rd_set_free(s);
}

static void the_ledger_counts_rules_and_members(void **state)
{
	struct rd_set *s = load(NULL);
	struct cd_buf a, b;
	size_t i, uuid = 0, ip = 0;

	(void)state;
	text_of(s, "a.txt",
		"GPU-5a3e7f01-2b4c-4d6e-8f90-123456789abc x "
		"GPU-5a3e7f01-2b4c-4d6e-8f90-123456789abc\n",
		&a);
	text_of(s, "b.txt", "10.1.1.1 10.1.1.2\nnothing here\n", &b);
	for (i = 0; i < rd_rules(s); i++) {
		if (!strcmp(rd_rule_name(s, i), "gpu-uuid"))
			uuid = i;
		if (!strcmp(rd_rule_name(s, i), "ipv4"))
			ip = i;
	}
	assert_int_equal(rd_rule_hits(s, uuid), 2);
	assert_int_equal(rd_rule_hits(s, ip), 2);
	assert_true(rd_rule_in_member(s, uuid, 0) && !rd_rule_in_member(s, uuid, 1));
	assert_true(rd_rule_in_member(s, ip, 1) && !rd_rule_in_member(s, ip, 0));
	assert_string_equal(rd_rule_kind(s, uuid), "field");
	assert_string_equal(rd_member_name(s, 1), "b.txt");
	assert_int_equal(rd_members(s), 2);
	buf_free(&a);
	buf_free(&b);
	rd_set_free(s);
}

static const char mixed[] =
	"export HF_TOKEN=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\r\n"
	"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\nAAAAEbm9uZQ\n"
	"-----END OPENSSH PRIVATE KEY-----\n"
	"url https://u:pw9@h.example/x from 192.168.7.7 user alice in /home/alice/run\n"
	"no newline at the end GPU-5a3e7f01-2b4c-4d6e-8f90-123456789abc";

static void pieces_of_any_size_give_the_same_text(void **state)
{
	struct rd_set *s = load(NULL);
	struct cd_buf whole, part;
	struct rd_stream st;
	struct cd_err err = {0};
	size_t step, i;

	(void)state;
	text_of(s, "whole", mixed, &whole);
	assert_null(strstr(whole.p, "hf_OwAJ"));
	assert_null(strstr(whole.p, "b3Blbn"));
	assert_null(strstr(whole.p, "pw9"));
	assert_non_null(strstr(whole.p,
			       "\r\n-----BEGIN OPENSSH PRIVATE KEY-----[redacted:private-key]\n"
			       "-----END OPENSSH PRIVATE KEY-----\n"));
	assert_non_null(strstr(whole.p, "from ipv4-0 user user0 in ~/run\n"));
	assert_true(str_has_suffix(whole.p, "end gpu-uuid-0"));
	for (step = 1; step < 40; step += 3) {
		rd_set_free(s);
		s = load(NULL);
		buf_init(&part, 0);
		rd_stream_init(&st, s, rd_member(s, "part"), &part);
		for (i = 0; i < sizeof(mixed) - 1; i += step)
			assert_int_equal(rd_stream_feed(&st, mixed + i,
							i + step < sizeof(mixed) - 1
								? step
								: sizeof(mixed) - 1 - i,
							&err),
					 0);
		assert_int_equal(rd_stream_end(&st, &err), 0);
		rd_stream_free(&st);
		assert_string_equal(part.p, whole.p);
		buf_free(&part);
	}
	buf_free(&whole);
	rd_set_free(s);
}

static void long_lines_keep_a_start_that_ends_at_a_word(void **state)
{
	struct rd_set *s = load(NULL);
	size_t n = 3 * RD_LINE_MAX, i;
	char *line = malloc(n + 1), *k;
	struct cd_buf out;

	(void)state;
	assert_non_null(line);
	for (i = 0; i < n; i++)
		line[i] = (char)('a' + i % 7);
	/* a token that straddles the cut, then one past it */
	memcpy(line + RD_LINE_MAX - 10, " 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 ", 39);
	memcpy(line + 2 * RD_LINE_MAX, " 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 ", 39);
	line[n] = '\n';
	buf_init(&out, 0);
	text_of(s, "long", "", &out);
	buf_free(&out);
	buf_init(&out, 0);
	{
		struct cd_err err = {0};
		assert_int_equal(rd_text(s, rd_member(s, "l"), line, n + 1, &out, &err), 0);
	}
	assert_true(out.len <= RD_LINE_MAX + 64);
	assert_null(strstr(out.p, "hf_"));
	assert_null(strstr(out.p, "OwAJ"));
	k = strstr(out.p, " [cuda-doctor: ");
	assert_non_null(k);
	assert_true(str_has_suffix(out.p, " bytes of this line left out]\n"));
	buf_free(&out);
	free(line);
	rd_set_free(s);
}

static void nul_bytes_are_dropped(void **state)
{
	struct rd_set *s = load(NULL);
	static const char in[] = "a\0b hf_OwAJiecAHj\0IxfihVLEjBWSqLkQgnFCXtkP\0\n\0\0c\n";
	struct rd_stream st;
	struct cd_buf out;
	struct cd_err err = {0};

	(void)state;
	buf_init(&out, 0);
	rd_stream_init(&st, s, rd_member(s, "nul"), &out);
	assert_int_equal(rd_stream_feed(&st, in, sizeof(in) - 1, &err), 0);
	assert_int_equal(rd_stream_end(&st, &err), 0);
	assert_int_equal(st.nul_dropped, 5);
	assert_string_equal(out.p, "ab [redacted:hf-token]\nc\n");
	rd_stream_free(&st);
	buf_free(&out);
	rd_set_free(s);
}

static void a_block_without_its_end_hides_the_rest(void **state)
{
	struct rd_set *s = load(NULL);
	struct cd_buf out;

	(void)state;
	text_of(s, "k",
		"before\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg\nafter the cut 10.0.0.1\n",
		&out);
	assert_string_equal(out.p,
			    "before\n-----BEGIN EC PRIVATE KEY-----[redacted:private-key]\n");
	buf_free(&out);
	rd_set_free(s);
}

static void learned_values_are_replaced_everywhere_after(void **state)
{
	struct rd_set *s = load(NULL);
	struct cd_buf a, b;

	(void)state;
	text_of(s, "smi",
		"    Serial Number                         : 1654922007715\n"
		"board 1654922007715 again\n",
		&a);
	text_of(s, "log", "serial 1654922007715 in a log; /home/bob/x and bob's run\n", &b);
	assert_string_equal(a.p, "    Serial Number                         : serial-0\n"
				 "board serial-0 again\n");
	assert_string_equal(b.p, "serial serial-0 in a log; /home/user0/x and user0's run\n");
	buf_free(&a);
	buf_free(&b);
	rd_set_free(s);
}

static void environment_values_go_whole(void **state)
{
	struct rd_set *s = load(NULL);
	struct cd_buf out;
	struct cd_err err = {0};
	int m = rd_member(s, "env.txt");

	(void)state;
	buf_init(&out, 0);
	assert_int_equal(rd_env(s, m, "MY_PASSWORD", "correct horse battery", &out, &err), 0);
	assert_int_equal(
		rd_env(s, m, "PIP_INDEX_URL", "https://ci:tok3n@pypi.corp/simple", &out, &err), 0);
	assert_int_equal(rd_env(s, m, "TOKENIZERS_PARALLELISM", "false", &out, &err), 0);
	assert_int_equal(rd_env(s, m, "AWS_REGION", "us-east-1", &out, &err), 0);
	assert_string_equal(out.p,
			    "MY_PASSWORD=[redacted:var-secret]\n"
			    "PIP_INDEX_URL=https://[redacted:url-credentials]@pypi.corp/simple\n"
			    "TOKENIZERS_PARALLELISM=false\n"
			    "AWS_REGION=[redacted:var-aws]\n");
	buf_free(&out);
	rd_set_free(s);
}

static void versions_the_facts_read_are_no_addresses(void **state)
{
	struct rd_set *s = load(NULL);
	struct cd_buf out;

	(void)state;
	text_of(s, "a", "cudnn 9.1.0.70 at 9.1.0.71\n", &out);
	assert_string_equal(out.p, "cudnn ipv4-0 at ipv4-1\n");
	buf_free(&out);
	assert_int_equal(rd_set_allow(s, "9.1.0.70"), 0);
	text_of(s, "b", "cudnn 9.1.0.70 at 9.1.0.71\n", &out);
	assert_string_equal(out.p, "cudnn 9.1.0.70 at ipv4-1\n");
	buf_free(&out);
	rd_set_free(s);
}

static void a_failing_rule_fails_the_text(void **state)
{
	struct rd_set *s = load(NULL);
	struct cd_buf out;
	struct cd_err err = {0};

	(void)state;
	rd_set_fail(s, "ipv4");
	buf_init(&out, 0);
	assert_int_equal(rd_text(s, rd_member(s, "logs/train.log"), "x\n", 2, &out, &err),
			 CD_EINTERNAL);
	assert_non_null(strstr(err.msg, "ipv4"));
	assert_non_null(strstr(err.msg, "logs/train.log"));
	buf_free(&out);
	rd_set_free(s);
}

static void bad_rules_are_refused(void **state)
{
	static const struct rd_def bad[] = {
		{"x", "shape", "", "", "(", "", "[r]", "", "", 0},
		{"x", "nope", "", "", "a", "", "[r]", "", "", 0},
		{"x", "shape", "", "", "a(b)", "", "[r]", "", "", 2},
		{"x", "var", "", "", "@ipv4", "", "[r]", "", "", 0},
		{"x", "shape", "", "", "@nope", "", "[r]", "", "", 0},
		{"x", "shape", "bogus", "", "a", "", "[r]", "", "", 0},
		{"x", "shape", "", "", "a", "", "", "", "", 0},
		{"x", "shape", "", "", "a", "", "{n}{n}", "", "", 0},
		{"Bad Name", "shape", "", "", "a", "", "[r]", "", "", 0},
		{"x", "field", "", "", "a", "b", "[r]", "", "", 0},
	};
	static const struct rd_def good = {"x", "shape", "", "", "a", "", "[r]", "", "", 0};
	struct rd_set *s;
	struct cd_err err = {0};
	size_t i;

	(void)state;
	assert_int_equal(rd_set_new(&s), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (rd_set_add(s, &bad[i], &err) != CD_EFORMAT)
			fail_msg("definition %zu accepted", i);
		assert_true(strlen(err.msg) > 0);
	}
	assert_int_equal(rd_rules(s), 0);
	assert_int_equal(rd_set_add(s, &good, &err), 0);
	assert_int_equal(rd_set_add(s, &good, &err), CD_EFORMAT); /* the same name twice */
	rd_set_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_rule_classifies_its_samples),
		cmocka_unit_test(aliases_are_consistent_across_members),
		cmocka_unit_test(the_ledger_counts_rules_and_members),
		cmocka_unit_test(pieces_of_any_size_give_the_same_text),
		cmocka_unit_test(long_lines_keep_a_start_that_ends_at_a_word),
		cmocka_unit_test(nul_bytes_are_dropped),
		cmocka_unit_test(a_block_without_its_end_hides_the_rest),
		cmocka_unit_test(learned_values_are_replaced_everywhere_after),
		cmocka_unit_test(environment_values_go_whole),
		cmocka_unit_test(versions_the_facts_read_are_no_addresses),
		cmocka_unit_test(a_failing_rule_fails_the_text),
		cmocka_unit_test(bad_rules_are_refused),
	};
	return cmocka_run_group_tests_name("redact", tests, NULL, NULL);
}
