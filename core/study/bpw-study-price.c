/* bpw-study-price.c — setting a candidate's price in place
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-study-price"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-blueprint.h"
#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-study-price.h"
#include "bpw-study-private.h"

gboolean
bpw_study_price_check (const BpwStudyPrice  *price,
                       GError              **error)
{
  g_autofree char *source = NULL;

  g_return_val_if_fail (price != NULL, FALSE);

  /* The reader's bounds (bpw-study-read.c), so that a saved price reads back. */
  if (!price->set || !isfinite (price->usd) || price->usd <= 0
      || price->usd > BPW_BLUEPRINT_MAX_COST)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("price.value: expected a number of dollars above 0 and at most %g, "
                     "not %g"), BPW_BLUEPRINT_MAX_COST, price->usd);
      return FALSE;
    }
  if (price->unit != BPW_PRICE_PER_DEVICE && price->unit != BPW_PRICE_PER_DEVICE_HOUR)
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("price.unit: expected per device or per device-hour"));
      return FALSE;
    }
  source = g_strstrip (g_strdup (price->source != NULL ? price->source : ""));
  if (source[0] == '\0')
    {
      g_set_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT,
                   _("price.source: a price needs its source"));
      return FALSE;
    }
  return TRUE;
}

gboolean
bpw_study_set_candidate_price (BpwStudy             *self,
                               guint                 index,
                               const BpwStudyPrice  *price,
                               GError              **error)
{
  BpwStudyCandidate *c;

  g_return_val_if_fail (BPW_IS_STUDY (self), FALSE);
  g_return_val_if_fail (index < self->candidates->len, FALSE);

  c = &g_array_index (self->candidates, BpwStudyCandidate, index);
  if (price != NULL && price->set)
    {
      g_autoptr(GError) local = NULL;

      if (!bpw_study_price_check (price, &local))
        {
          g_set_error (error, local->domain, local->code,
                       _("candidate “%s”: %s"), c->name, local->message);
          return FALSE;
        }
    }
  g_clear_pointer (&c->price.source, g_free);
  memset (&c->price, 0, sizeof c->price);
  if (price != NULL && price->set)
    {
      c->price = *price;
      c->price.source = g_strdup (price->source);
    }
  return TRUE;
}
