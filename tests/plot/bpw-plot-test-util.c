/* bpw-plot-test-util.c — helpers shared by the plot tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-plot-test"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-candidate.h"
#include "bpw-plot-test-util.h"
#include "bpw-study.h"

BpwPlan *
bpw_plot_test_default_plan (const char *candidate,
                            const char *scenario)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwStudy) study = bpw_study_new_bundled ("default", &error);
  BpwCandidateRun run;
  BpwPlan *plan = NULL;
  guint c = 0, s = 0;

  g_assert_no_error (error);
  if (candidate != NULL)
    {
      for (c = 0; c < bpw_study_get_n_candidates (study); c++)
        if (strcmp (bpw_study_get_candidate (study, c)->name, candidate) == 0)
          break;
      g_assert_cmpuint (c, <, bpw_study_get_n_candidates (study));
    }
  if (scenario != NULL)
    g_assert_true (bpw_study_lookup_scenario (study, scenario, &s));
  if (bpw_candidate_run_init (&run, study, c, s, &error))
    plan = bpw_candidate_run_bind (&run, &error);
  bpw_candidate_run_clear (&run);
  g_assert_no_error (error);
  g_assert_nonnull (plan);
  return plan;
}

static void
read_pixel (cairo_surface_t *surface, int px, int py, BpwPlotColor *color)
{
  const unsigned char *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);
  guint32 v = *(const guint32 *) (data + py * stride + px * 4);
  double a = ((v >> 24) & 0xff) / 255.0;

  /* ARGB32 is premultiplied; undo it so colours compare with the style's. */
  *color = (BpwPlotColor) {
    a > 0 ? ((v >> 16) & 0xff) / 255.0 / a : 0,
    a > 0 ? ((v >> 8) & 0xff) / 255.0 / a : 0,
    a > 0 ? (v & 0xff) / 255.0 / a : 0,
    a,
  };
}

guint
bpw_plot_test_count_ink (cairo_surface_t    *surface,
                         const BpwPlotColor *background)
{
  int w = cairo_image_surface_get_width (surface), h = cairo_image_surface_get_height (surface);
  guint ink = 0;

  cairo_surface_flush (surface);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        BpwPlotColor c;

        read_pixel (surface, x, y, &c);
        if (fabs (c.r - background->r) + fabs (c.g - background->g) +
            fabs (c.b - background->b) > 0.05)
          ink++;
      }
  return ink;
}

void
bpw_plot_test_pixel (cairo_surface_t *surface,
                     double           scale,
                     double           x,
                     double           y,
                     BpwPlotColor    *color)
{
  cairo_surface_flush (surface);
  read_pixel (surface, (int) floor (x * scale), (int) floor (y * scale), color);
}

typedef struct
{
  char  *root;
} XmlState;

static void
start_element (GMarkupParseContext *context, const char *name, const char **attribute_names,
               const char **attribute_values, gpointer user_data, GError **error)
{
  XmlState *state = user_data;

  if (state->root == NULL)
    state->root = g_strdup (name);
}

char *
bpw_plot_test_xml_root (const char  *path,
                        GError     **error)
{
  static const GMarkupParser parser = { start_element, NULL, NULL, NULL, NULL };
  g_autofree char *contents = NULL;
  gsize length;
  XmlState state = { NULL };
  GMarkupParseContext *context;
  gboolean ok;

  if (!g_file_get_contents (path, &contents, &length, error))
    return NULL;
  context = g_markup_parse_context_new (&parser, 0, &state, NULL);
  ok = g_markup_parse_context_parse (context, contents, length, error) &&
       g_markup_parse_context_end_parse (context, error);
  g_markup_parse_context_free (context);
  if (!ok)
    g_clear_pointer (&state.root, g_free);
  return state.root;
}

char *
bpw_plot_test_pdf_text (const char *path)
{
  g_autofree char *program = g_find_program_in_path ("pdftotext");
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  int status = 0;
  const char *argv[] = { NULL, "-layout", path, "-", NULL };

  if (program == NULL)
    return NULL;
  argv[0] = program;
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return out;
}

GStrv
bpw_plot_test_csv_fields (const char *line)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr(GString) field = g_string_new (NULL);
  gboolean quoted = FALSE;

  for (const char *p = line;; p++)
    {
      if (quoted)
        {
          if (*p == '\0')
            break;
          if (*p == '"' && p[1] == '"')
            g_string_append_c (field, '"'), p++;
          else if (*p == '"')
            quoted = FALSE;
          else
            g_string_append_c (field, *p);
          continue;
        }
      if (*p == '"')
        quoted = TRUE;
      else if (*p == ',' || *p == '\0' || *p == '\n')
        {
          g_strv_builder_add (builder, field->str);
          g_string_truncate (field, 0);
          if (*p != ',')
            break;
        }
      else
        g_string_append_c (field, *p);
    }
  return g_strv_builder_end (builder);
}
