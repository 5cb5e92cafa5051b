/* bpw-i18n.h — translatable strings of libbpw-core
 *
 * The core has a gettext domain of its own, "blueprint-workbench-core", so that its error
 * messages and report headings are translated in the window, in `bpw` and in any other
 * program that links it. Core files include this header instead of <glib/gi18n.h>:
 * inside the core (BPW_CORE_COMPILATION), _() looks the string up in the core's domain
 * whatever the program's default domain is, and N_() marks a string that is translated
 * where it is used. Programs include it only for bpw_core_i18n_init(), which they call
 * once, after setlocale(); their own _() stays theirs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define BPW_CORE_GETTEXT_DOMAIN "blueprint-workbench-core"

#ifdef BPW_CORE_COMPILATION
/* Translatable formats print 64-bit integers with PRId64 / PRIu64, which xgettext and
 * gettext understand, rather than G_GINT64_FORMAT, which they do not. */
#include <inttypes.h>
#include <string.h>

#ifdef _
#undef _
#endif
#ifdef N_
#undef N_
#endif
#define _(String)  g_dgettext (BPW_CORE_GETTEXT_DOMAIN, String)
#define N_(String) (String)
#define C_(Context, String) g_dpgettext (BPW_CORE_GETTEXT_DOMAIN, Context "\004" String, strlen (Context) + 1)
#define NC_(Context, String) (String)
#endif

/* Binds the core's domain to @localedir (nullable: the build's LOCALEDIR) in UTF-8. */
void bpw_core_i18n_init (const char *localedir);

G_END_DECLS
