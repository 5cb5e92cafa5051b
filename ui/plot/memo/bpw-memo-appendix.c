/* bpw-memo-appendix.c — the memo's mapping-sheet excerpt, assumptions with provenance, and
 * validation section
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-memo"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "bpw-mapping-sheet.h"
#include "bpw-memo-private.h"

#define SHEET_ROWS 32

static void
sheet_excerpt (BpwMemo *m)
{
  g_autoptr(GArray) rows = NULL;
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *heading = NULL;
  g_autofree char *note = NULL;
  const char *head[] = { _("Operation"), _("Phase"), _("Kind"), _("Engine or link"), _("dtype"), _("FLOPs"),
                         _("Bytes"), _("Time each"), _("Per step"), _("Total"), _("Bottleneck") };
  BpwMemoAlign align[G_N_ELEMENTS (head)];
  guint shown = 0, total = 0;

  if (m->plan == NULL)
    return;
  heading = g_strdup_printf (_("Mapping sheet excerpt: %s on %s"), m->cmp->candidates[m->best],
                             m->cmp->scenarios[m->cmp->scenario]);
  bpw_memo_page_heading (&m->page, 1, heading);
  for (guint k = 0; k < G_N_ELEMENTS (head); k++)
    {
      g_ptr_array_add (cells, g_strdup (head[k]));
      align[k] = k >= 5 && k <= 9 ? BPW_MEMO_RIGHT : BPW_MEMO_LEFT;
    }
  rows = bpw_mapping_sheet_new (m->plan, TRUE);
  for (guint i = 0; i < rows->len; i++)
    {
      const BpwSheetRow *r = &g_array_index (rows, BpwSheetRow, i);
      char buf[BPW_SI_LABEL_MAX];

      if (r->stage != 0)
        continue;
      total++;
      if (shown >= SHEET_ROWS)
        continue;
      shown++;
      g_ptr_array_add (cells, g_strdup (r->name));
      g_ptr_array_add (cells, g_strdup (bpw_phase_to_string (r->phase)));
      g_ptr_array_add (cells, g_strdup (r->kind));
      g_ptr_array_add (cells, g_strdup (r->engine));
      g_ptr_array_add (cells, g_strdup (r->dtype));
      bpw_si_format (buf, sizeof buf, r->flops, "FLOP", 3);
      g_ptr_array_add (cells, g_strdup (r->flops > 0 ? buf : "—"));
      bpw_plot_style_format_bytes (&m->page.style, buf, sizeof buf, r->device_bytes);
      g_ptr_array_add (cells, g_strdup (buf));
      bpw_si_format (buf, sizeof buf, r->time_s, "s", 3);
      g_ptr_array_add (cells, g_strdup (buf));
      bpw_si_format_human (buf, sizeof buf, r->count, NULL, 4);
      g_ptr_array_add (cells, g_strdup (buf));
      bpw_si_format (buf, sizeof buf, r->total_s, "s", 3);
      g_ptr_array_add (cells, g_strdup (buf));
      g_ptr_array_add (cells, g_strdup (bpw_bottleneck_display_name (r->bottleneck)));
    }
  note = g_strdup_printf (_("The first %u of the %u rows of pipeline stage 0's first transformer "
                          "block, embedding side and head (the full sheet: bpw export --view "
                          "sheet). FLOPs and bytes per execution (wire bytes for transfers), "
                          "time per execution and per step on one rank."), shown, total);
  bpw_memo_page_paragraph (&m->page, BPW_PLOT_FONT_SMALL, &m->page.style.muted, note);
  bpw_memo_page_table (&m->page, (const char * const *) cells->pdata,
                       cells->len / G_N_ELEMENTS (head), G_N_ELEMENTS (head), align);
}

static void
sourced_row (GPtrArray *cells, const char *what, const BpwSourced *v, const char *unit)
{
  char buf[BPW_SI_LABEL_MAX];

  if (!v->set)
    return;
  bpw_si_format (buf, sizeof buf, v->value, unit, 4);
  g_ptr_array_add (cells, g_strdup (what));
  g_ptr_array_add (cells, g_strdup (buf));
  g_ptr_array_add (cells, g_strdup (bpw_provenance_kind_to_string (v->kind)));
  g_ptr_array_add (cells, g_strdup (v->source != NULL ? v->source : _("not given")));
}

static void
blueprint_provenance (BpwMemo *m, const char *name, BpwPrecision precision)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwBlueprint) bp = bpw_study_load_blueprint (m->study, name, &error);
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *heading = NULL;
  const char *head[] = { _("Value"), _("Figure"), _("Kind"), _("Source") };

  heading = g_strdup_printf (_("Blueprint %s%s%s%s"), name,
                             bp != NULL && bp->device != NULL ? " (" : "",
                             bp != NULL && bp->device != NULL ? bp->device : "",
                             bp != NULL && bp->device != NULL ? ")" : "");
  bpw_memo_page_heading (&m->page, 2, heading);
  if (bp == NULL)
    {
      bpw_memo_page_paragraph (&m->page, BPW_PLOT_FONT_BODY, NULL, error->message);
      return;
    }
  for (guint k = 0; k < G_N_ELEMENTS (head); k++)
    g_ptr_array_add (cells, g_strdup (head[k]));
  for (guint e = 0; e < bp->n_engines; e++)
    {
      g_autofree char *what = g_strdup_printf (_("%s (%s) peak, %s"), bp->engines[e].name,
                                               bpw_engine_kind_to_string (bp->engines[e].kind),
                                               bpw_precision_to_string (precision));

      sourced_row (cells, what, &bp->engines[e].peak[precision], "FLOP/s");
    }
  for (guint i = 0; i < bp->n_memory; i++)
    {
      g_autofree char *cap = g_strdup_printf (_("%s capacity"), bp->memory[i].name);
      g_autofree char *bw = g_strdup_printf (_("%s bandwidth"), bp->memory[i].name);
      g_autofree char *energy = g_strdup_printf (_("%s energy per byte"), bp->memory[i].name);

      if (bp->memory[i].kind != BPW_MEMORY_DEVICE && bp->memory[i].kind != BPW_MEMORY_HOST)
        continue;
      sourced_row (cells, cap, &bp->memory[i].capacity,
                   bpw_plot_style_bytes_unit (&m->page.style));
      sourced_row (cells, bw, &bp->memory[i].bandwidth, "B/s");
      sourced_row (cells, energy, &bp->memory[i].energy_per_byte, "J/B");
    }
  for (guint t = 0; t < bp->n_tiers; t++)
    {
      g_autofree char *bw = g_strdup_printf (_("%s bandwidth per direction"), bp->tiers[t].name);
      g_autofree char *lat = g_strdup_printf (_("%s latency"), bp->tiers[t].name);
      g_autofree char *energy = g_strdup_printf (_("%s energy per byte"), bp->tiers[t].name);

      sourced_row (cells, bw, &bp->tiers[t].bandwidth, "B/s");
      sourced_row (cells, lat, &bp->tiers[t].latency, "s");
      sourced_row (cells, energy, &bp->tiers[t].energy_per_byte, "J/B");
    }
  sourced_row (cells, "TDP", &bp->tdp, "W");
  sourced_row (cells, _("Idle power"), &bp->idle_power, "W");
  sourced_row (cells, _("Power cap"), &bp->power_cap, "W");
  {
    g_autofree char *what = g_strdup_printf (_("Energy per FLOP, %s"),
                                             bpw_precision_to_string (precision));

    sourced_row (cells, what, &bp->energy_per_flop[precision], "J/FLOP");
  }
  sourced_row (cells, _("Cost per device"), &bp->cost, "$");
  bpw_memo_page_table (&m->page, (const char * const *) cells->pdata, cells->len / 4, 4, NULL);
}

static void
assumptions (BpwMemo *m)
{
  const char * const *bps = bpw_study_get_blueprints (m->study);
  BpwPrecision precision = m->plan != NULL ? m->plan->precision : BPW_PRECISION_BF16;

  bpw_memo_page_heading (&m->page, 1, _("Assumptions and provenance"));
  bpw_memo_page_paragraph (&m->page, BPW_PLOT_FONT_BODY, NULL,
                           _("Step time = m·t + (p − 1)/v·t + the slowest stage's optimizer and "
                           "exposed data-parallel communication, with t the slowest stage's "
                           "time per micro-batch, m micro-batches, p stages and v interleaved "
                           "chunks. The breakdown (compute, memory stall, latency, exposed "
                           "communication, bubble, recompute, optimizer) adds up to the step "
                           "time. MFU counts model FLOPs (matrix products of forward and "
                           "backward, no recompute) over step time × devices × dense peak. "
                           "Energy is idle power over the step plus each task's FLOPs and "
                           "bytes at the blueprint's energy figures (TDP − idle while busy "
                           "where those are missing). The timeline and lifetimes come from a "
                           "discrete-event simulation of one step of one pipeline column; the "
                           "other figures from the analytic estimator."));
  bpw_memo_page_paragraph (&m->page, BPW_PLOT_FONT_BODY, NULL,
                           _("Every blueprint value carries its provenance: datasheet, estimate, "
                           "calibrated or measured, with its source. The values the figures "
                           "depend on most:"));
  for (guint i = 0; bps != NULL && bps[i] != NULL; i++)
    blueprint_provenance (m, bps[i], precision);
}

static void
validation (BpwMemo *m)
{
  bpw_memo_page_heading (&m->page, 1, _("Validation"));
  if (m->options->validation != NULL &&
      m->options->validation (&m->page, m->study, m->options->validation_data))
    return;
  bpw_memo_page_paragraph (&m->page, BPW_PLOT_FONT_BODY, NULL,
                           _("The study holds no measurements, so the numbers in this memo are "
                           "not validated against profiles: they are estimates from the "
                           "blueprints' datasheet and calibrated values listed above. Once "
                           "measured step times are imported into the study, this section "
                           "compares them with the estimates, scenario by scenario."));
}

void
_bpw_memo_appendix (BpwMemo *m)
{
  sheet_excerpt (m);
  assumptions (m);
  validation (m);
}
