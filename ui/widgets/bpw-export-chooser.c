/* bpw-export-chooser.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-export-chooser"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "bpw-export-chooser.h"

/* The PNG resolution is a filter of its own: GTK 4.8's fallback dialog does not keep a
 * choice set on it, and a filter is one pick for the user either way. */
static const struct
{
  const char *extension;
  const char *mime_type;
  double      scale;
  const char *name;
} bpw_export_formats[] = {
  { "png", "image/png", 2.0, N_("PNG Image, 2× (1440 × 810 px)") },
  { "png", "image/png", 1.0, N_("PNG Image, 1× (720 × 405 px)") },
  { "svg", "image/svg+xml", 2.0, N_("SVG Image") },
  { "pdf", "application/pdf", 2.0, N_("PDF Document") },
  { "csv", "text/csv", 2.0, N_("CSV Table (the data behind the chart)") },
};

GtkFileChooserNative *
bpw_export_chooser_new (GtkWindow  *parent,
                        const char *title,
                        gboolean    chart)
{
  GtkFileChooserNative *native;
  g_autofree char *name = NULL;

  native = gtk_file_chooser_native_new (chart ? _("Export Chart") : _("Export Table"), parent,
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"),
                                        _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  for (guint i = chart ? 0 : G_N_ELEMENTS (bpw_export_formats) - 1;
       i < G_N_ELEMENTS (bpw_export_formats); i++)
    {
      g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

      gtk_file_filter_set_name (filter, _(bpw_export_formats[i].name));
      gtk_file_filter_add_mime_type (filter, bpw_export_formats[i].mime_type);
      gtk_file_filter_add_suffix (filter, bpw_export_formats[i].extension);
      g_object_set_data (G_OBJECT (filter), "bpw-format", GUINT_TO_POINTER (i + 1));
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), filter);
    }
  /* Translators: the default file name of an exported chart without a title */
  name = g_strdup_printf ("%s.%s", title != NULL && *title != '\0' ? title : _("chart"),
                          chart ? "png" : "csv");
  g_strdelimit (name, "/\\:*?\"<>|", '-');
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), name);
  return native;
}

static gboolean
bpw_export_chooser_known_extension (const char *path)
{
  const char *dot = strrchr (path, '.');

  if (dot == NULL || strchr (dot, G_DIR_SEPARATOR) != NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (bpw_export_formats); i++)
    if (g_ascii_strcasecmp (dot + 1, bpw_export_formats[i].extension) == 0)
      return TRUE;
  return FALSE;
}

char *
bpw_export_chooser_dup_path (GtkFileChooserNative *native,
                             double               *scale)
{
  g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
  GtkFileFilter *filter = gtk_file_chooser_get_filter (GTK_FILE_CHOOSER (native));
  guint format = filter != NULL ? GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (filter),
                                                                       "bpw-format")) : 0;
  g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;

  *scale = format > 0 ? bpw_export_formats[format - 1].scale : 2.0;
  if (path == NULL)
    return NULL;
  if (!bpw_export_chooser_known_extension (path) && format > 0)
    return g_strconcat (path, ".", bpw_export_formats[format - 1].extension, NULL);
  return g_steal_pointer (&path);
}
