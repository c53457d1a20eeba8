/* fake_nccl: a libnccl.so.2 for `probe --nccl` tests, over fake_cuda.c's
 * host-memory "devices"; behaviour chosen by CD_FAKE_MODE (fake_common.h).
 * Signatures are those of nccl.h. An all-reduce (sum of int32) is computed
 * when its group ends, or at once outside a group. */
#include "fake_common.h"

typedef int ncclResult_t;

enum { NCCL_OK = 0, NCCL_SYSTEM_ERROR = 2, NCCL_INVALID_ARGUMENT = 4, RANKS = 8 };

struct ncclComm {
	int rank, n;
};

static struct ncclComm comms[RANKS];
static struct {
	const uint32_t *send;
	uint32_t *recv;
	size_t count;
} ops[RANKS];
static int n_ops, in_group;
static const char *last = "";

FAKE_EXPORT ncclResult_t ncclGetVersion(int *v)
{
	fake_trace(__func__);
	if (!v)
		return NCCL_INVALID_ARGUMENT;
	*v = 22703; /* 2.27.3 */
	return NCCL_OK;
}

FAKE_EXPORT ncclResult_t ncclCommInitAll(struct ncclComm **c, int n, const int *list)
{
	int i;

	fake_trace(__func__);
	(void)list;
	if (!c || n < 1 || n > RANKS)
		return NCCL_INVALID_ARGUMENT;
	if (fake_mode() == FM_NCCLHANG)
		fake_hang();
	if (fake_mode() == FM_NCCLFAIL) {
		last = "Error while creating shared memory segment /dev/shm/nccl-fake (size "
		       "9637888)";
		return NCCL_SYSTEM_ERROR;
	}
	for (i = 0; i < n; i++) {
		comms[i] = (struct ncclComm){i, n};
		c[i] = &comms[i];
	}
	return NCCL_OK;
}

static void complete(void)
{
	size_t k;
	int i;

	for (k = 0; n_ops && k < ops[0].count; k++) {
		uint32_t s = 0;
		for (i = 0; i < n_ops; i++)
			s += ops[i].send[k];
		for (i = 0; i < n_ops; i++)
			ops[i].recv[k] = s + (fake_mode() == FM_NCCLWRONG && i == 0 && k == 12345);
	}
	n_ops = 0;
}

FAKE_EXPORT ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count, int type, int op,
				       struct ncclComm *comm, void *stream)
{
	fake_trace(__func__);
	(void)stream;
	if (!send || !recv || !comm || type != 2 || op != 0 || n_ops == RANKS)
		return NCCL_INVALID_ARGUMENT;
	ops[n_ops].send = send;
	ops[n_ops].recv = recv;
	ops[n_ops++].count = count;
	if (!in_group)
		complete();
	return NCCL_OK;
}

FAKE_EXPORT ncclResult_t ncclGroupStart(void)
{
	in_group++;
	return NCCL_OK;
}

FAKE_EXPORT ncclResult_t ncclGroupEnd(void)
{
	if (in_group && !--in_group)
		complete();
	return NCCL_OK;
}

FAKE_EXPORT const char *ncclGetErrorString(ncclResult_t rc)
{
	return rc == NCCL_OK		 ? "no error"
	       : rc == NCCL_SYSTEM_ERROR ? "unhandled system error"
					 : "?";
}

FAKE_EXPORT const char *ncclGetLastError(struct ncclComm *comm)
{
	(void)comm;
	return last;
}
