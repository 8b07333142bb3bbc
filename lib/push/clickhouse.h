/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A ClickHouse server through its HTTP interface (libcurl): a statement
 * and its text reply, or an INSERT with its rows as the request body.
 * On failure the reason is kept (kt_ch_error) for the caller's one line:
 * the server unreachable, the credentials refused, or ClickHouse's own
 * message for a statement or a batch it rejected.
 */
#ifndef KT_PUSH_CLICKHOUSE_H
#define KT_PUSH_CLICKHOUSE_H

#include <stddef.h>

struct kt_ch;

/*
 * url is http://HOST:PORT[/DATABASE]; user NULL is ClickHouse's default.
 * NULL and errno (EINVAL: not such a URL, ENOMEM) on failure.  libcurl
 * starts loading on a thread (push/curlfns.h): kt_ch_free() it before
 * the process exits.
 */
struct kt_ch *kt_ch_new(const char *url, const char *user, const char *password);
void kt_ch_free(struct kt_ch *ch);
/* Another connection to the same server as the same user. */
struct kt_ch *kt_ch_clone(const struct kt_ch *ch);
/* "HOST:PORT", for messages. */
const char *kt_ch_server(const struct kt_ch *ch);
/* The database named in the URL, or NULL. */
const char *kt_ch_database(const struct kt_ch *ch);

/*
 * Run sql; with body, sql is an INSERT ... FORMAT whose data is body.
 * 0 and the reply's text in *reply (valid until the next call; NULL:
 * not wanted), or -ECONNREFUSED / -EHOSTUNREACH / -ETIMEDOUT (no
 * answer), -EACCES (credentials refused), -EIO (the server refused the
 * statement), -ENOMEM.
 */
int kt_ch_query(struct kt_ch *ch, const char *sql, const void *body, size_t len,
		const char **reply);
/* The same with the body in niov pieces, sent as they are (no copy). */
struct iovec;
int kt_ch_insert(struct kt_ch *ch, const char *sql, const struct iovec *iov, int niov,
		 const char **reply);
/* Make the database the URL names when it is missing (0 when it names none). */
int kt_ch_create_database(struct kt_ch *ch);
/* The last failure's reason, one line. */
const char *kt_ch_error(const struct kt_ch *ch);

#endif
