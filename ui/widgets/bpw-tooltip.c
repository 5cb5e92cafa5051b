/* bpw-tooltip.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-tooltip"

#include "config.h"

#include "bpw-tooltip.h"

#define BPW_TOOLTIP_KEY "bpw-tooltip"

static gboolean
bpw_tooltip_query_cb (GtkWidget  *widget,
                      int         x,
                      int         y,
                      gboolean    keyboard,
                      GtkTooltip *tooltip,
                      gpointer    user_data)
{
  const char *text = g_object_get_data (G_OBJECT (widget), BPW_TOOLTIP_KEY);

  if (text == NULL || text[0] == '\0')
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

void
bpw_tooltip_set (GtkWidget  *widget,
                 const char *text)
{
  g_return_if_fail (GTK_IS_WIDGET (widget));

  if (g_object_get_data (G_OBJECT (widget), "bpw-tooltip-connected") == NULL)
    {
      g_signal_connect (widget, "query-tooltip", G_CALLBACK (bpw_tooltip_query_cb), NULL);
      g_object_set_data (G_OBJECT (widget), "bpw-tooltip-connected", GINT_TO_POINTER (TRUE));
    }
  g_object_set_data_full (G_OBJECT (widget), BPW_TOOLTIP_KEY, g_strdup (text), g_free);
  /* Unlike setting the text, this does not ask the X server where the pointer is. */
  gtk_widget_set_has_tooltip (widget, text != NULL && text[0] != '\0');
}

const char *
bpw_tooltip_get (GtkWidget *widget)
{
  g_return_val_if_fail (GTK_IS_WIDGET (widget), NULL);
  return g_object_get_data (G_OBJECT (widget), BPW_TOOLTIP_KEY);
}
