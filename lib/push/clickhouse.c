// SPDX-License-Identifier: GPL-2.0
/*
 * ClickHouse over HTTP with libcurl.  See clickhouse.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/uio.h>

#include "push/clickhouse.h"
#include "push/curlfns.h"
#include "push/bytebuf.h"

struct kt_ch {
	const struct kt_curl *cu;	/* libcurl, once the first request needs it */
	CURL *c;
	struct curl_slist *headers;
	char *base;			/* "http://HOST:PORT/" */
	char *server;			/* "HOST:PORT" */
	char *db;			/* NULL: the user's default */
	char *url, *user, *password;	/* what it was made from, for kt_ch_clone */
	struct kt_bytebuf reply;
	char err[512];
};

/* A body in pieces, read by libcurl as it sends. */
struct body {
	const struct iovec *iov;
	int n, at;
	size_t off;
};

static size_t on_read(char *p, size_t size, size_t n, void *arg)
{
	struct body *b = arg;
	size_t want = size * n, got = 0, k;

	while (got < want && b->at < b->n) {
		k = b->iov[b->at].iov_len - b->off;
		if (k > want - got)
			k = want - got;
		if (k)		/* an empty piece may have no memory */
			memcpy(p + got, (const char *)b->iov[b->at].iov_base + b->off, k);
		got += k;
		b->off += k;
		if (b->off == b->iov[b->at].iov_len) {
			b->at++;
			b->off = 0;
		}
	}
	return got;
}

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct kt_bytebuf *b = arg;

	kt_bytebuf_add(b, p, size * n);
	return b->failed ? 0 : size * n;
}

struct kt_ch *kt_ch_new(const char *url, const char *user, const char *password)
{
	struct kt_ch *ch;
	const char *host, *slash;
	int err = ENOMEM;

	if (strncmp(url, "http://", 7) || !url[7] || url[7] == '/') {
		errno = EINVAL;
		return NULL;
	}
	host = url + 7;
	slash = strchr(host, '/');
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		goto err_none;
	ch->url = strdup(url);
	ch->user = user ? strdup(user) : NULL;
	ch->password = password ? strdup(password) : NULL;
	if (!ch->url || (user && !ch->user) || (password && !ch->password))
		goto err_ch;
	ch->server = slash ? strndup(host, (size_t)(slash - host)) : strdup(host);
	if (!ch->server || asprintf(&ch->base, "http://%s/", ch->server) < 0) {
		ch->base = NULL;
		goto err_ch;
	}
	if (slash && slash[1]) {
		ch->db = strdup(slash + 1);
		if (!ch->db)
			goto err_ch;
		ch->db[strcspn(ch->db, "/?")] = '\0';
	}
	/* libcurl on its way while the caller opens its file (see curlfns.h). */
	kt_curl_preload();
	return ch;

err_ch:
	kt_ch_free(ch);
err_none:
	errno = err;
	return NULL;
}

void kt_ch_free(struct kt_ch *ch)
{
	if (!ch)
		return;
	/* No exit while another thread is inside dlopen(). */
	kt_curl_settle();
	if (ch->c)
		ch->cu->easy_cleanup(ch->c);
	if (ch->headers)
		ch->cu->slist_free_all(ch->headers);
	kt_bytebuf_free(&ch->reply);
	free(ch->base);
	free(ch->server);
	free(ch->db);
	free(ch->url);
	free(ch->user);
	if (ch->password)
		explicit_bzero(ch->password, strlen(ch->password));
	free(ch->password);
	free(ch);
}

struct kt_ch *kt_ch_clone(const struct kt_ch *ch)
{
	return kt_ch_new(ch->url, ch->user, ch->password);
}

const char *kt_ch_server(const struct kt_ch *ch)
{
	return ch->server;
}

const char *kt_ch_database(const struct kt_ch *ch)
{
	return ch->db;
}

const char *kt_ch_error(const struct kt_ch *ch)
{
	return ch->err;
}

/*
 * ClickHouse's message without its wrapping: "Code: 60, e.displayText()
 * = DB::Exception: Table default.x doesn't exist., e.what() = ..." ->
 * "Table default.x doesn't exist." (code 60).
 */
static void server_message(struct kt_ch *ch, long status)
{
	const char *text = kt_bytebuf_text(&ch->reply), *m = strstr(text, "DB::Exception: ");
	const char *end;
	int code = 0;

	sscanf(text, "Code: %d", &code);
	if (m) {
		m += 15;
		end = strstr(m, ", e.what()");
		if (!end)
			end = m + strcspn(m, "\n");
	} else {
		m = text;
		end = m + strcspn(m, "\n");
	}
	if (end - m > 400)
		end = m + 400;
	if (code)
		snprintf(ch->err, sizeof(ch->err), "%.*s (ClickHouse code %d)", (int)(end - m), m, code);
	else
		snprintf(ch->err, sizeof(ch->err), "HTTP %ld: %.*s", status, (int)(end - m), m);
}

/* The connection's handle, made on its first request: 0, or -ELIBACC / -ENOMEM (why in ch->err). */
static int handle(struct kt_ch *ch)
{
	const struct kt_curl *cu;

	if (ch->c)
		return 0;
	cu = ch->cu ? ch->cu : kt_curl_get();
	if (!cu) {
		snprintf(ch->err, sizeof(ch->err), "cannot load libcurl: %s; install libcurl4",
			 kt_curl_error());
		return -ELIBACC;
	}
	ch->cu = cu;
	/* ClickHouse needs no 100-continue round trip before a batch. */
	if (!ch->headers)
		ch->headers = cu->slist_append(NULL, "Expect:");
	ch->c = ch->headers ? cu->easy_init() : NULL;
	if (!ch->c) {
		snprintf(ch->err, sizeof(ch->err), "libcurl: out of memory");
		return -ENOMEM;
	}
	cu->easy_setopt(ch->c, CURLOPT_HTTPHEADER, ch->headers);
	cu->easy_setopt(ch->c, CURLOPT_WRITEFUNCTION, on_data);
	cu->easy_setopt(ch->c, CURLOPT_WRITEDATA, &ch->reply);
	cu->easy_setopt(ch->c, CURLOPT_CONNECTTIMEOUT, 10L);
	cu->easy_setopt(ch->c, CURLOPT_NOSIGNAL, 1L);
	if (ch->user || ch->password) {
		cu->easy_setopt(ch->c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		cu->easy_setopt(ch->c, CURLOPT_USERNAME, ch->user ? ch->user : "default");
		cu->easy_setopt(ch->c, CURLOPT_PASSWORD, ch->password ? ch->password : "");
	}
	return 0;
}

int kt_ch_query(struct kt_ch *ch, const char *sql, const void *body, size_t len,
		const char **reply)
{
	struct iovec one = { (void *)body, len };

	return kt_ch_insert(ch, sql, body ? &one : NULL, body ? 1 : 0, reply);
}

int kt_ch_insert(struct kt_ch *ch, const char *sql, const struct iovec *iov, int niov,
		 const char **reply)
{
	struct body body = { .iov = iov, .n = niov };
	const void *post = iov ? NULL : sql;
	char *url = NULL, *q = NULL;
	size_t len = 0;
	CURLcode rc;
	long status = 0;
	int ret = 0, i;

	ch->reply.len = 0;
	ch->reply.failed = false;
	ch->err[0] = '\0';
	ret = handle(ch);
	if (ret)
		return ret;
	if (iov) {
		q = ch->cu->easy_escape(ch->c, sql, 0);
		if (!q)
			return -ENOMEM;
		for (i = 0; i < niov; i++)
			len += iov[i].iov_len;
	} else {
		len = strlen(sql);
	}
	if (asprintf(&url, "%s?%s%s%s%s", ch->base, q ? "query=" : "", q ? q : "",
		     ch->db ? (q ? "&database=" : "database=") : "", ch->db ? ch->db : "") < 0) {
		ch->cu->free(q);
		return -ENOMEM;
	}
	ch->cu->free(q);
	ch->cu->easy_setopt(ch->c, CURLOPT_URL, url);
	/* A statement as the body; or the rows, read from their pieces as sent. */
	ch->cu->easy_setopt(ch->c, CURLOPT_POST, 1L);
	ch->cu->easy_setopt(ch->c, CURLOPT_POSTFIELDS, post);
	ch->cu->easy_setopt(ch->c, CURLOPT_READFUNCTION, on_read);
	ch->cu->easy_setopt(ch->c, CURLOPT_READDATA, &body);
	ch->cu->easy_setopt(ch->c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	rc = ch->cu->easy_perform(ch->c);
	free(url);
	if (rc != CURLE_OK) {
		snprintf(ch->err, sizeof(ch->err), "%s%s",
			 rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
			 rc == CURLE_OPERATION_TIMEDOUT ? "unreachable: " : "",
			 ch->cu->easy_strerror(rc));
		if (rc == CURLE_COULDNT_CONNECT)
			return -ECONNREFUSED;
		if (rc == CURLE_OPERATION_TIMEDOUT)
			return -ETIMEDOUT;
		if (rc == CURLE_OUT_OF_MEMORY)
			return -ENOMEM;
		return rc == CURLE_COULDNT_RESOLVE_HOST ? -EHOSTUNREACH : -EIO;
	}
	ch->cu->easy_getinfo(ch->c, CURLINFO_RESPONSE_CODE, &status);
	if (ch->reply.failed)
		return -ENOMEM;
	if (status != 200) {
		server_message(ch, status);
		/* 192 unknown user, 193 wrong password, 194 password required. */
		ret = status == 401 || status == 403 ||
		      strstr(ch->err, "code 192)") || strstr(ch->err, "code 193)") ||
		      strstr(ch->err, "code 194)") ? -EACCES : -EIO;
		if (ret == -EACCES) {
			char m[sizeof(ch->err)];

			snprintf(m, sizeof(m), "%s", ch->err);
			snprintf(ch->err, sizeof(ch->err), "credentials refused: %.480s", m);
		}
		return ret;
	}
	if (reply)
		*reply = kt_bytebuf_text(&ch->reply);
	return 0;
}

int kt_ch_create_database(struct kt_ch *ch)
{
	char *db = ch->db, *sql;
	int ret;

	if (!db)
		return 0;
	if (asprintf(&sql, "CREATE DATABASE IF NOT EXISTS `%s`", db) < 0)
		return -ENOMEM;
	/* Not "?database=": the server refuses a database that is not there yet. */
	ch->db = NULL;
	ret = kt_ch_query(ch, sql, NULL, 0, NULL);
	ch->db = db;
	free(sql);
	return ret;
}
