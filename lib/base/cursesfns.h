/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ncurses and terminfo functions and variables ktrace top's screen
 * uses, from Debian's libncursesw.so.6 (with the libtinfo.so.6 it needs)
 * loaded on first use (base/dlfns.h) rather than linked.  Linked, their
 * 503 symbol relocations were two thirds of the dynamic linker's work,
 * and their two libraries' mappings and page faults a part of every
 * ktrace command's start, where only top's screen needs them.
 *
 * Include it after <curses.h> and <term.h>: it makes their names (and
 * the header's macros built on them: erase(), attron(), mvaddnstr()...)
 * read the loaded pointers, so the screen's code reads as plain curses.
 * Nothing may call them before kt_curses_get() has succeeded.
 */
#ifndef KT_BASE_CURSESFNS_H
#define KT_BASE_CURSESFNS_H

#include <curses.h>
#include <term.h>

#define KT_CURSES_FNS(X) \
	X(cbreak) \
	X(clearok) \
	X(curs_set) \
	X(del_curterm) \
	X(delscreen) \
	X(endwin) \
	X(has_colors) \
	X(init_pair) \
	X(keypad) \
	X(mvprintw) \
	X(newterm) \
	X(nodelay) \
	X(noecho) \
	X(nonl) \
	X(set_curterm) \
	X(setupterm) \
	X(start_color) \
	X(tigetstr) \
	X(use_default_colors) \
	X(waddnstr) \
	X(wattr_off) \
	X(wattr_on) \
	X(werase) \
	X(wgetch) \
	X(whline) \
	X(wmove) \
	X(wrefresh)

/* The variables: each slot holds the variable's address. */
#define KT_CURSES_VARS(X) \
	X(COLS) \
	X(LINES) \
	X(curscr) \
	X(stdscr)

struct kt_curses {
	/* __typeof__ keeps each pointer's type the header's own. */
#define KT_CURSES_PTR(f) __typeof__(f) *f;
	KT_CURSES_FNS(KT_CURSES_PTR)
	KT_CURSES_VARS(KT_CURSES_PTR)
#undef KT_CURSES_PTR
};

/*
 * The functions, loaded once for the process: NULL on failure, the
 * reason in kt_curses_error().
 */
const struct kt_curses *kt_curses_get(void);
/* Why kt_curses_get() failed: "libncursesw.so.6: cannot open shared object file...". */
const char *kt_curses_error(void);

extern const struct kt_curses *kt_curses_fns;

#ifndef KT_CURSES_LOADER
#define cbreak			(kt_curses_fns->cbreak)
#define clearok			(kt_curses_fns->clearok)
#define curs_set		(kt_curses_fns->curs_set)
#define del_curterm		(kt_curses_fns->del_curterm)
#define delscreen		(kt_curses_fns->delscreen)
#define endwin			(kt_curses_fns->endwin)
#define has_colors		(kt_curses_fns->has_colors)
#define init_pair		(kt_curses_fns->init_pair)
#define keypad			(kt_curses_fns->keypad)
#define mvprintw		(kt_curses_fns->mvprintw)
#define newterm			(kt_curses_fns->newterm)
#define nodelay			(kt_curses_fns->nodelay)
#define noecho			(kt_curses_fns->noecho)
#define nonl			(kt_curses_fns->nonl)
#define set_curterm		(kt_curses_fns->set_curterm)
#define setupterm		(kt_curses_fns->setupterm)
#define start_color		(kt_curses_fns->start_color)
#define tigetstr		(kt_curses_fns->tigetstr)
#define use_default_colors	(kt_curses_fns->use_default_colors)
#define waddnstr		(kt_curses_fns->waddnstr)
#define wattr_off		(kt_curses_fns->wattr_off)
#define wattr_on		(kt_curses_fns->wattr_on)
#define werase			(kt_curses_fns->werase)
#define wgetch			(kt_curses_fns->wgetch)
#define whline			(kt_curses_fns->whline)
#define wmove			(kt_curses_fns->wmove)
#define wrefresh		(kt_curses_fns->wrefresh)
#define COLS			(*kt_curses_fns->COLS)
#define LINES			(*kt_curses_fns->LINES)
#define curscr			(*kt_curses_fns->curscr)
#define stdscr			(*kt_curses_fns->stdscr)
#endif

#endif
