/* timeit: run a command N times and print its median and minimum wall time in
 * milliseconds and its peak resident set size, measured with wait4's rusage.
 * Usage: timeit N CMD [ARGS...]; output: "median_ms min_ms max_rss_kb status".
 * The command's stdout and stderr go to /dev/null so output cost is the same
 * for every tool measured. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	double t[1000];
	long n, i, rss = 0;
	int status = 0;

	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) < 1 || n > 1000) {
		fprintf(stderr, "usage: timeit N CMD [ARGS...]\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		struct rusage ru;
		double t0 = now_ms();
		pid_t pid = fork();
		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);
			dup2(fd, 1);
			dup2(fd, 2);
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
			perror("timeit");
			return 1;
		}
		t[i] = now_ms() - t0;
		if (ru.ru_maxrss > rss)
			rss = ru.ru_maxrss;
	}
	qsort(t, (size_t)n, sizeof(t[0]), cmp);
	printf("%.2f %.2f %ld %d\n", t[n / 2], t[0], rss,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}
