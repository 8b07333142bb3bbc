/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libtraceevent's plugins for one reader's tep, each loaded when the
 * first format it can change is parsed, not all of them at the open.
 *
 * tep_load_plugins() dlopens every plugin (12 on Debian 12, with
 * RTLD_NOW relocations) and tep_unload_plugins() closes them: about
 * 0.9 ms of a 3.5 ms report of a small file, which made ktrace slower
 * than trace-cmd on most of tests/data.  A plugin changes only the
 * events it registers a handler for (by system and name) and the print
 * fmts that call a function it registers (by name), so each known one
 * is loaded when a format of its systems, or one naming its functions,
 * is about to be parsed.  The table is libtraceevent 1.7's.  When a
 * plugin not in it is found (a newer one, one in $HOME or
 * $TRACEEVENT_PLUGIN_DIR, which may override a known one's handlers),
 * every plugin is loaded at the first format, in tep_load_plugins()'s
 * order, so the text is trace-cmd's whatever the installed plugins.
 */
#ifndef KT_PLUGINS_H
#define KT_PLUGINS_H

struct tep_handle;
struct kt_plugins;

/* The plugin files for tep, none loaded yet; NULL + errno. */
struct kt_plugins *kt_plugins_new(struct tep_handle *tep);

/*
 * The plugins a format of system, its text fmt, can be changed by,
 * loaded before it is parsed (all of them, when one is not known).
 */
void kt_plugins_want(struct kt_plugins *p, const char *system, const char *fmt);

/* Each loaded plugin's unloader run, and the plugin closed. */
void kt_plugins_free(struct kt_plugins *p);

#endif
