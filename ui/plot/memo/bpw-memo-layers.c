/* bpw-memo-layers.c — the memo's section by layer type: MFU and memory stall of every
 * candidate on every scenario, and where the recommended candidate's steps go
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The numbers are the comparison's analytic estimates, split as bpw-evaluation.h says:
 * every device's step by layer type and "Other", each part by bottleneck class.
 */
#define G_LOG_DOMAIN "bpw-memo"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "bpw-memo-private.h"

static char *
percent (double fraction)
{
  return isfinite (fraction) ? g_strdup_printf ("%.1f %%", 100.0 * fraction) : g_strdup ("—");
}

/* Candidates × scenarios, a column per layer type that takes time anywhere ("Other",
 * without FLOPs or tasks, is in the table of the recommended candidate). */
static void
matrix (BpwMemo *m)
{
  const BpwCompareData *cmp = m->cmp;
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  BpwMemoAlign align[2 + BPW_N_LAYER_TYPES];
  guint buckets[BPW_N_LAYER_TYPES], n = 0;

  for (guint b = 0; b < BPW_N_LAYER_TYPES; b++)
    for (guint i = 0; i < cmp->n_candidates * cmp->n_scenarios; i++)
      if (cmp->cells[i].ok && bpw_evaluation_layer_time (&cmp->cells[i].eval, b) > 0)
        {
          buckets[n++] = b;
          break;
        }
  g_ptr_array_add (cells, g_strdup (_("Candidate")));
  g_ptr_array_add (cells, g_strdup (_("Scenario")));
  align[0] = align[1] = BPW_MEMO_LEFT;
  for (guint k = 0; k < n; k++)
    {
      g_ptr_array_add (cells, g_strdup (bpw_layer_bucket_display_name (buckets[k])));
      align[k + 2] = BPW_MEMO_RIGHT;
    }
  for (guint c = 0; c < cmp->n_candidates; c++)
    for (guint s = 0; s < cmp->n_scenarios; s++)
      {
        const BpwCompareFit *f = bpw_compare_data_cell (cmp, c, s);

        g_ptr_array_add (cells, g_strdup (s == 0 ? cmp->candidates[c] : ""));
        g_ptr_array_add (cells, g_strdup (cmp->scenarios[s]));
        for (guint k = 0; k < n; k++)
          {
            guint b = buckets[k];
            g_autofree char *mfu = NULL, *stall = NULL;

            if (!f->ok || bpw_evaluation_layer_time (&f->eval, b) <= 0)
              {
                g_ptr_array_add (cells, g_strdup ("—"));
                continue;
              }
            mfu = percent (f->eval.layer_mfu[b]);
            stall = percent (f->eval.stall_fraction[b]);
            /* Translators: a layer type's MFU and memory-stall fraction in the memo's
             * table, "41.2 % / 8.0 %" */
            g_ptr_array_add (cells, g_strdup_printf (_("%s / %s"), mfu, stall));
          }
      }
  bpw_memo_page_table (&m->page, (const char * const *) cells->pdata, cells->len / (n + 2),
                       n + 2, align);
}

/* The recommended candidate, scenario by scenario: each layer type's share of the step,
 * MFU, stall, dominant class and time by class. */
static void
breakdown (BpwMemo *m)
{
  const BpwCompareData *cmp = m->cmp;
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  const char *head[] = { _("Scenario"), _("Layer type"), _("Share of step"), _("MFU"),
                         _("Memory stall"), _("Bottleneck"), _("Time by class") };
  BpwMemoAlign align[G_N_ELEMENTS (head)];

  for (guint k = 0; k < G_N_ELEMENTS (head); k++)
    {
      g_ptr_array_add (cells, g_strdup (head[k]));
      align[k] = k >= 2 && k <= 4 ? BPW_MEMO_RIGHT : BPW_MEMO_LEFT;
    }
  for (guint s = 0; s < cmp->n_scenarios; s++)
    {
      const BpwCompareFit *f = bpw_compare_data_cell (cmp, m->best, s);
      const BpwEvaluation *e = &f->eval;
      gboolean first = TRUE;

      if (!f->ok)
        continue;
      for (guint b = 0; b < BPW_N_LAYER_BUCKETS; b++)
        {
          double time = bpw_evaluation_layer_time (e, b);
          GString *classes;

          if (time <= 0)
            continue;
          g_ptr_array_add (cells, g_strdup (first ? cmp->scenarios[s] : ""));
          first = FALSE;
          g_ptr_array_add (cells, g_strdup (bpw_layer_bucket_display_name (b)));
          g_ptr_array_add (cells, percent (time / e->step_time_s));
          g_ptr_array_add (cells, percent (e->layer_mfu[b]));
          g_ptr_array_add (cells, percent (b < BPW_N_LAYER_TYPES ? e->stall_fraction[b] : NAN));
          g_ptr_array_add (cells, g_strdup (bpw_bottleneck_display_name (
                                              bpw_evaluation_layer_bottleneck (e, b))));
          classes = g_string_new (NULL);
          for (guint c = 0; c < BPW_N_BOTTLENECKS; c++)
            if (e->layer_class_s[b][c] >= 0.005 * time)
              /* Translators: one class's share of a layer type's time, "Memory 31 %" */
              g_string_append_printf (classes, classes->len > 0 ? _(" · %s %.0f %%")
                                                                : _("%s %.0f %%"),
                                      bpw_bottleneck_display_name (c),
                                      100.0 * e->layer_class_s[b][c] / time);
          g_ptr_array_add (cells, g_string_free (classes, FALSE));
        }
    }
  bpw_memo_page_table (&m->page, (const char * const *) cells->pdata,
                       cells->len / G_N_ELEMENTS (head), G_N_ELEMENTS (head), align);
}

void
_bpw_memo_layers (BpwMemo *m)
{
  g_autofree char *heading = NULL;

  bpw_memo_page_heading (&m->page, 1, _("By layer type"));
  bpw_memo_page_paragraph (&m->page, BPW_PLOT_FONT_SMALL, &m->page.style.muted,
                           _("Analytic estimates, mappings as given. Each device’s step is "
                           "split into the time of each layer type’s operations (its tasks "
                           "and the tensor- and expert-parallel collectives that serve them) "
                           "and Other, the time no layer takes: pipeline bubble, pipeline "
                           "sends, data-parallel traffic. A layer type’s MFU is its model "
                           "FLOPs over its time on every device at the dense matrix peak; "
                           "weighted by time they average to the step’s MFU. Memory stall: "
                           "the part of the layer type’s task time spent waiting on memory."));
  bpw_memo_page_heading (&m->page, 2, _("MFU / memory stall"));
  matrix (m);
  heading = g_strdup_printf (_("Where the steps of %s go"), m->cmp->candidates[m->best]);
  bpw_memo_page_heading (&m->page, 2, heading);
  breakdown (m);
}
