/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON text, for the views that write it and the commands' --json.
 */
#ifndef KT_JSON_H
#define KT_JSON_H

#include <stdio.h>

/* Write s as a JSON string, quotes included. */
void kt_json_put_str(FILE *out, const char *s);

#endif
