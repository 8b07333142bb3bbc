// SPDX-License-Identifier: GPL-2.0
/* kt_fmt_*(): printf's number, padding and time conversions, done by hand. */
#include <stdint.h>
#include <string.h>

#include "decode/fastfmt-int.h"

char *kt_fmt_udec(char *p, uint64_t v, int width, char pad)
{
	return udec_pad(p, v, width, pad);
}

char *kt_fmt_sdec(char *p, int64_t v, int width)
{
	char tmp[24];
	char *s = udec_rev(tmp + sizeof(tmp), v < 0 ? -(uint64_t)v : (uint64_t)v);
	int n;

	if (v < 0)
		*--s = '-';
	n = (int)(tmp + sizeof(tmp) - s);
	for (; width > n; width--)
		*p++ = ' ';
	memcpy(p, s, (size_t)n);
	return p + n;
}

char *kt_fmt_str_left(char *p, const char *s, size_t len, int width)
{
	memcpy(p, s, len);
	p += len;
	for (; width > (int)len; width--)
		*p++ = ' ';
	return p;
}

char *kt_fmt_str_right(char *p, const char *s, size_t len, int width)
{
	for (; width > (int)len; width--)
		*p++ = ' ';
	memcpy(p, s, len);
	return p + len;
}

char *kt_fmt_hex(char *p, uint64_t v)
{
	return put_hex(p, v);
}

char *kt_fmt_time(char *p, unsigned long long ts, int prec, int div)
{
	unsigned long long p10 = 1;
	int i;

	if (div) {
		ts += (unsigned long long)(div / 2);
		ts /= (unsigned long long)div;
	}
	for (i = 0; i < prec; i++)
		p10 *= 10;
	if (p10 > 1) {
		p = kt_fmt_udec(p, ts / p10, 5, ' ');
		*p++ = '.';
		return kt_fmt_udec(p, ts % p10, prec, '0');
	}
	return kt_fmt_udec(p, ts, 12, ' ');
}
