/* bpw-link-share.c — fair shares of one link among the transfers on it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The model and its sources: bpw-link-share.h.
 */
#define G_LOG_DOMAIN "bpw-simulate"

#include "config.h"

#include <math.h>

#include "bpw-link-share.h"

/* The end of a finished flow: the arithmetic of an idle link when it never shared (a
 * floor within rounding of it is the floor itself), else when its last service ended. */
static double
finish_time (const BpwLinkFlow *f, double served_until)
{
  if (!f->shared)
    {
      double alone = f->start + f->work;

      if (f->floor > 0 && alone <= f->floor + 1e-12 * fabs (f->floor))
        return f->floor;
      return alone;
    }
  return MAX (served_until, f->floor);
}

double
bpw_link_share_sweep (BpwLinkFlow *flows,
                      guint        n_flows,
                      double       from,
                      double       until,
                      double       group_free[BPW_LINK_MAX_GROUPS])
{
  gint32 free_by[BPW_LINK_MAX_GROUPS];
  double t = from;

  for (guint g = 0; g < BPW_LINK_MAX_GROUPS; g++)
    free_by[g] = BPW_LINK_EARLIER;
  for (guint i = 0; i < n_flows; i++)
    if (flows[i].done)
      free_by[flows[i].group] = (gint32) i;

  for (;;)
    {
      gint32 head[BPW_LINK_MAX_GROUPS], active[BPW_LINK_MAX_GROUPS];
      guint n_active = 0;
      double next = G_MAXDOUBLE, least = G_MAXDOUBLE, done_at, served;

      for (guint g = 0; g < BPW_LINK_MAX_GROUPS; g++)
        head[g] = -1;
      for (guint i = 0; i < n_flows; i++)
        if (!flows[i].done && head[flows[i].group] < 0)
          head[flows[i].group] = (gint32) i;

      /* The groups' current transfers: started ones are served, the others wait for
       * their ready time or their group's previous transfer. */
      for (guint g = 0; g < BPW_LINK_MAX_GROUPS; g++)
        {
          BpwLinkFlow *f;

          if (head[g] < 0)
            continue;
          f = &flows[head[g]];
          if (!f->started)
            {
              double start = f->ready;
              gint32 behind = BPW_LINK_READY;

              if (group_free[g] > start)
                {
                  start = group_free[g];
                  behind = free_by[g];
                }
              if (start > t)
                {
                  next = MIN (next, start);
                  continue;
                }
              f->start = start;
              f->behind = behind;
              f->started = TRUE;
            }
          active[n_active++] = head[g];
          least = MIN (least, f->left);
        }

      if (n_active == 0)
        {
          if (next == G_MAXDOUBLE)
            return until == G_MAXDOUBLE ? t : MAX (t, until);
          if (next > until)
            return until;
          t = next;
          continue;
        }

      done_at = t + least * (double) n_active;
      if (done_at > until && next > until)
        {
          /* Stop at @until, part way through every active flow. */
          served = (until - t) / (double) n_active;
          for (guint a = 0; a < n_active; a++)
            {
              BpwLinkFlow *f = &flows[active[a]];

              f->left = MAX (f->left - served, 0.0);
              f->shared |= n_active > 1;
            }
          return MAX (t, until);
        }

      if (next < done_at)
        {
          /* An arrival: serve everyone up to it, then share with one more. */
          served = (next - t) / (double) n_active;
          for (guint a = 0; a < n_active; a++)
            {
              BpwLinkFlow *f = &flows[active[a]];

              f->left = MAX (f->left - served, 0.0);
              f->shared |= n_active > 1;
            }
          t = next;
          continue;
        }

      /* A departure: the least left finishes (with any equal to it). */
      served = least;
      for (guint a = 0; a < n_active; a++)
        {
          BpwLinkFlow *f = &flows[active[a]];

          f->shared |= n_active > 1;
          if (f->left <= least)
            {
              f->left = 0;
              f->done = TRUE;
              f->end = finish_time (f, done_at);
              group_free[f->group] = MAX (group_free[f->group], f->end);
              free_by[f->group] = active[a];
            }
          else
            f->left = MAX (f->left - served, 0.0);
        }
      t = done_at;
    }
}
