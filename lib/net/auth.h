/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The agent's token, proved and never sent: the agent's HELLO carries a
 * fresh random nonce; the controller answers HMAC-SHA-256 (libsodium)
 * keyed with the token's SHA-256 over "ktrace-agent-auth-v1" and the
 * nonce; the agent compares in constant time.
 */
#ifndef KT_AUTH_H
#define KT_AUTH_H

#include <stddef.h>
#include <stdint.h>

#define KT_AUTH_KEY	32
#define KT_AUTH_MAC	32

/*
 * Read the token of path (its first line, at most 4 KB, not empty) into
 * key.  0 or -errno (-EINVAL: empty; -EPERM: readable by others;
 * -ELIBACC: libsodium could not be loaded, said here).
 */
int kt_auth_load(const char *path, uint8_t key[KT_AUTH_KEY]);
/* Fill a nonce from the system's random source.  0 or -errno. */
int kt_auth_nonce(uint8_t *nonce, size_t len);
/* The answer to nonce. */
void kt_auth_answer(const uint8_t key[KT_AUTH_KEY], const uint8_t *nonce,
		    size_t len, uint8_t mac[KT_AUTH_MAC]);
/* 0 when mac answers nonce, -EACCES when not (constant time). */
int kt_auth_check(const uint8_t key[KT_AUTH_KEY], const uint8_t *nonce,
		  size_t len, const uint8_t *mac, size_t mac_len);

#endif
