// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's challenge and response: see auth.h.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "base/dlfns.h"
#include "base/log.h"
#include "net/auth.h"

#define AUTH_CONTEXT	"ktrace-agent-auth-v1"

/*
 * libsodium, loaded when a token or a nonce is first needed (base/dlfns.h)
 * rather than linked: linked, its ~200 symbol bindings were paid at every
 * ktrace command's start, where only the agent and --remote use it.
 * kt_auth_load() loads it; kt_auth_answer() and kt_auth_check() (with a
 * key) come after it.
 */
#define SODIUM_FNS(X) \
	X(sodium_init) X(sodium_memzero) X(sodium_memcmp) \
	X(crypto_hash_sha256) X(crypto_auth_hmacsha256_init) \
	X(crypto_auth_hmacsha256_update) X(crypto_auth_hmacsha256_final)

static struct {
#define PTR(f) __typeof__(f) *f;
	SODIUM_FNS(PTR)
#undef PTR
} so;
static bool so_loaded;
static pthread_once_t so_once = PTHREAD_ONCE_INIT;

static void so_load(void)
{
#define NAME(f) #f,
#define SLOT(f) &so.f,
	static const char *const names[] = { SODIUM_FNS(NAME) };
	void *const slots[] = { SODIUM_FNS(SLOT) };
	char why[256];

	if (!kt_dl_load("libsodium.so.23", RTLD_NOW | RTLD_LOCAL, names, slots,
			sizeof(names) / sizeof(names[0]), why, sizeof(why))) {
		kt_err("cannot load libsodium for the agent's token: %s; install libsodium23", why);
		return;
	}
	so_loaded = so.sodium_init() >= 0;
	if (!so_loaded)
		kt_err("cannot start libsodium for the agent's token");
}

/* libsodium loaded and started: 0 or -ELIBACC (said). */
static int so_get(void)
{
	pthread_once(&so_once, so_load);
	return so_loaded ? 0 : -ELIBACC;
}

int kt_auth_load(const char *path, uint8_t key[KT_AUTH_KEY])
{
	char buf[4097];
	struct stat st;
	ssize_t n;
	size_t len;
	int fd, ret = 0;

	ret = so_get();
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		ret = errno ? -errno : -EINVAL;
	else if (st.st_mode & 077)
		ret = -EPERM;
	n = ret ? 0 : read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (ret)
		return ret;
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	len = strcspn(buf, "\r\n");
	if (!len) {
		so.sodium_memzero(buf, sizeof(buf));
		return -EINVAL;
	}
	so.crypto_hash_sha256(key, (const unsigned char *)buf, len);
	so.sodium_memzero(buf, sizeof(buf));
	return 0;
}

/*
 * The kernel's random numbers, not libsodium's (which reads the same):
 * an agent without a token needs no libsodium.
 */
int kt_auth_nonce(uint8_t *nonce, size_t len)
{
	ssize_t n;
	size_t got = 0;

	while (got < len) {
		n = getrandom(nonce + got, len - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		got += (size_t)n;
	}
	return 0;
}

void kt_auth_answer(const uint8_t key[KT_AUTH_KEY], const uint8_t *nonce,
		    size_t len, uint8_t mac[KT_AUTH_MAC])
{
	crypto_auth_hmacsha256_state st;

	so.crypto_auth_hmacsha256_init(&st, key, KT_AUTH_KEY);
	so.crypto_auth_hmacsha256_update(&st, (const unsigned char *)AUTH_CONTEXT,
				      sizeof(AUTH_CONTEXT) - 1);
	so.crypto_auth_hmacsha256_update(&st, nonce, len);
	so.crypto_auth_hmacsha256_final(&st, mac);
	so.sodium_memzero(&st, sizeof(st));
}

int kt_auth_check(const uint8_t key[KT_AUTH_KEY], const uint8_t *nonce,
		  size_t len, const uint8_t *mac, size_t mac_len)
{
	uint8_t want[KT_AUTH_MAC];
	int ret;

	if (mac_len != KT_AUTH_MAC)
		return -EACCES;
	kt_auth_answer(key, nonce, len, want);
	ret = so.sodium_memcmp(want, mac, KT_AUTH_MAC) ? -EACCES : 0;
	so.sodium_memzero(want, sizeof(want));
	return ret;
}
