// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's challenge and response: see auth.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "net/auth.h"

#define AUTH_CONTEXT	"ktrace-agent-auth-v1"

int kt_auth_load(const char *path, uint8_t key[KT_AUTH_KEY])
{
	char buf[4097];
	struct stat st;
	ssize_t n;
	size_t len;
	int fd, ret = 0;

	if (sodium_init() < 0)
		return -EIO;
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
		sodium_memzero(buf, sizeof(buf));
		return -EINVAL;
	}
	crypto_hash_sha256(key, (const unsigned char *)buf, len);
	sodium_memzero(buf, sizeof(buf));
	return 0;
}

int kt_auth_nonce(uint8_t *nonce, size_t len)
{
	if (sodium_init() < 0)
		return -EIO;
	randombytes_buf(nonce, len);
	return 0;
}

void kt_auth_answer(const uint8_t key[KT_AUTH_KEY], const uint8_t *nonce,
		    size_t len, uint8_t mac[KT_AUTH_MAC])
{
	crypto_auth_hmacsha256_state st;

	crypto_auth_hmacsha256_init(&st, key, KT_AUTH_KEY);
	crypto_auth_hmacsha256_update(&st, (const unsigned char *)AUTH_CONTEXT,
				      sizeof(AUTH_CONTEXT) - 1);
	crypto_auth_hmacsha256_update(&st, nonce, len);
	crypto_auth_hmacsha256_final(&st, mac);
	sodium_memzero(&st, sizeof(st));
}

int kt_auth_check(const uint8_t key[KT_AUTH_KEY], const uint8_t *nonce,
		  size_t len, const uint8_t *mac, size_t mac_len)
{
	uint8_t want[KT_AUTH_MAC];
	int ret;

	if (mac_len != KT_AUTH_MAC)
		return -EACCES;
	kt_auth_answer(key, nonce, len, want);
	ret = sodium_memcmp(want, mac, KT_AUTH_MAC) ? -EACCES : 0;
	sodium_memzero(want, sizeof(want));
	return ret;
}
