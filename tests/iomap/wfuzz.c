/* wfuzz.c: iomap-test-server --fuzz (wfuzz.h): reply mutation and random
 * notifications. The generator is a seeded xorshift, so a seed replays the
 * same sequence of decisions (the kernel's timing still varies the rest). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../../proto/fuse_iomap.h"
#include "wfuzz.h"
#include "xorshift.h"

#define FZ_MAX_PAYLOAD	(256 * 1024)
#define FZ_NOTES	64	/* notifications queued for the notifier thread */
#define FZ_NOTE_MAX	(sizeof(struct fuse_out_header) + 64)

static struct {
	int on, fd, log_fd;
	uint64_t rng, dev_size;
	uint64_t replies, mutated, rejected, notified, dropped;
	uint8_t buf[FZ_MAX_PAYLOAD + 4096];
} fz = { .log_fd = -1 };

/* Notifications go out from their own thread, as a FUSE server's must: the
 * kernel may need an answer from the server before it can apply one (an
 * INVAL_INODE waits for folios that writeback keeps locked while it asks for
 * a write mapping; an INVAL_ENTRY for a directory that a pending CREATE
 * holds), so one pushed by the thread that answers can deadlock the server
 * with the kernel. A full queue drops the notification. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t more;
	unsigned int head, tail;	/* head - tail queued */
	size_t len[FZ_NOTES];
	uint8_t msg[FZ_NOTES][FZ_NOTE_MAX];
} nq = { .lock = PTHREAD_MUTEX_INITIALIZER, .more = PTHREAD_COND_INITIALIZER };

static void *notifier(void *arg)
{
	uint8_t msg[FZ_NOTE_MAX];
	size_t len;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&nq.lock);
		while (nq.head == nq.tail)
			pthread_cond_wait(&nq.more, &nq.lock);
		len = nq.len[nq.tail % FZ_NOTES];
		memcpy(msg, nq.msg[nq.tail % FZ_NOTES], len);
		nq.tail++;
		pthread_mutex_unlock(&nq.lock);
		/* the kernel refuses most of them: that is the point */
		if (write(fz.fd, msg, len) < 0 && errno == ENODEV)
			return NULL;
	}
}

static uint64_t rnd(void)
{
	return xs_next(&fz.rng);
}

static uint64_t below(uint64_t n)
{
	return xs_below(&fz.rng, n);
}

/* Values that sit on the edges the kernel has to check. */
static uint64_t edge(uint64_t old)
{
	const uint64_t v[] = {
		0, 1, 511, 512, 4095, 4096, 4097, 1ULL << 20, 1ULL << 30,
		fz.dev_size - 4096, fz.dev_size, fz.dev_size + 4096,
		UINT32_MAX, 1ULL << 32, INT64_MAX, 1ULL << 63, UINT64_MAX,
		UINT64_MAX - 4095, old + 1, old - 1, old + 4096, old * 2, rnd(),
	};

	return v[below(sizeof(v) / sizeof(v[0]))];
}

static void set_edge(uint8_t *p, size_t len)
{
	static const size_t widths[] = { 1, 2, 4, 8 };
	size_t w = widths[below(4)], off;
	uint64_t old = 0, val;

	if (len < w)
		return;
	off = below(len / w) * w;
	memcpy(&old, p + off, w);
	val = edge(old);
	memcpy(p + off, &val, w);
}

static int send(uint64_t unique, int32_t error, uint32_t hdr_len, const void *data, size_t len)
{
	struct fuse_out_header oh = { hdr_len, error, unique };
	struct iovec iov[2] = { { &oh, sizeof(oh) }, { (void *)data, len } };

	return writev(fz.fd, iov, 2) < 0 ? -1 : 0;
}

/* A write the kernel must refuse without ending any request. */
static void rejected(uint64_t unique, size_t len)
{
	static const int32_t bad_errors[] = { 1, 512, -512, -4096, INT32_MIN, INT32_MAX };

	fz.rejected++;
	switch (below(3)) {
	case 0:
		send(unique, bad_errors[below(6)], sizeof(struct fuse_out_header), NULL, 0);
		break;
	case 1:		/* a length that is not the write's */
		send(unique, 0, (uint32_t)(sizeof(struct fuse_out_header) + len + 1 + below(64)),
		     fz.buf, len);
		break;
	default:	/* a request nobody sent (or already answered) */
		send(unique + 2 * (1 + below(1000)), 0,
		     (uint32_t)(sizeof(struct fuse_out_header) + len), fz.buf, len);
	}
}

/* A notification with random or edge contents, queued for the notifier. */
static void notify(void)
{
	static const int32_t codes[] = {
		FUSE_NOTIFY_POLL, FUSE_NOTIFY_INVAL_INODE, FUSE_NOTIFY_INVAL_ENTRY,
		FUSE_NOTIFY_STORE, FUSE_NOTIFY_RETRIEVE, FUSE_NOTIFY_DELETE, 7, 99, 100, 101,
	};
	struct fuse_out_header oh = { 0, codes[below(sizeof(codes) / sizeof(codes[0]))], 0 };
	uint64_t w[8];
	size_t len = 8 * (1 + below(8));
	uint8_t *msg;

	for (size_t i = 0; i < 8; i++)
		w[i] = below(2) ? edge(0) : 1 + below(5);	/* small: inode numbers */
	oh.len = (uint32_t)(sizeof(oh) + len);
	pthread_mutex_lock(&nq.lock);
	if (nq.head - nq.tail == FZ_NOTES) {
		fz.dropped++;
	} else {
		fz.notified++;
		msg = nq.msg[nq.head % FZ_NOTES];
		memcpy(msg, &oh, sizeof(oh));
		memcpy(msg + sizeof(oh), w, len);
		nq.len[nq.head++ % FZ_NOTES] = oh.len;
		pthread_cond_signal(&nq.more);
	}
	pthread_mutex_unlock(&nq.lock);
}

int fz_start(uint64_t seed, int fuse_fd, uint64_t dev_size, const char *log)
{
	pthread_t t;
	int e;

	fz.rng = seed * 0x9E3779B97F4A7C15ULL + 1;
	fz.fd = fuse_fd;
	fz.dev_size = dev_size;
	if (log)
		fz.log_fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	e = pthread_create(&t, NULL, notifier, NULL);
	if (e) {
		errno = e;
		return -1;
	}
	pthread_detach(t);
	fz.on = 1;
	return 0;
}

int fz_active(void)
{
	return fz.on;
}

void fz_flush_log(void)
{
	char line[160];
	int n;

	if (fz.log_fd < 0)
		return;
	pthread_mutex_lock(&nq.lock);
	n = snprintf(line, sizeof(line),
		     "replies=%llu mutated=%llu rejected=%llu notified=%llu dropped=%llu\n",
		     (unsigned long long)fz.replies, (unsigned long long)fz.mutated,
		     (unsigned long long)fz.rejected, (unsigned long long)fz.notified,
		     (unsigned long long)fz.dropped);
	pthread_mutex_unlock(&nq.lock);
	/* the counts only grow: each line covers the last */
	if (pwrite(fz.log_fd, line, (size_t)n, 0) != n)
		fz.log_fd = -1;
}

int fz_reply(uint64_t unique, int error, const void *data, size_t len)
{
	int32_t err = -error;
	size_t n = error ? 0 : len;
	int r;

	if (n > FZ_MAX_PAYLOAD)
		n = FZ_MAX_PAYLOAD;
	if (n)
		memcpy(fz.buf, data, n);
	fz.replies++;
	if (below(8) == 0)
		rejected(unique, n);
	if (below(3) == 0) {
		fz.mutated++;
		switch (below(7)) {
		case 0:
		case 1:
			for (int i = 1 + (int)below(3); i; i--)
				set_edge(fz.buf, n);
			break;
		case 2:
			for (int i = 1 + (int)below(4); i && n; i--)
				fz.buf[below(n)] ^= (uint8_t)(1u << below(8));
			break;
		case 3:
			n = below(n);
			break;
		case 4:		/* padded with random bytes */
			for (size_t end = n + 1 + below(64); n < end; n++)
				fz.buf[n] = (uint8_t)rnd();
			break;
		case 5:
			for (size_t i = 0; i < n; i++)
				fz.buf[i] = (uint8_t)rnd();
			break;
		default: {
			static const int errs[] = { EIO, ENOENT, EINVAL, ENOSPC, EFBIG, EAGAIN,
						    EINTR, ENOSYS, EPERM, ENOMEM, 0, 511 };

			err = -errs[below(sizeof(errs) / sizeof(errs[0]))];
			n = err ? 0 : n;
		}
		}
	}
	r = send(unique, err, (uint32_t)(sizeof(struct fuse_out_header) + n), fz.buf, n);
	if (below(16) == 0)
		notify();
	if (fz.replies % 256 == 0)
		fz_flush_log();
	return r;
}
