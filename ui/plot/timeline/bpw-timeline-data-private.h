/* bpw-timeline-data-private.h — what the timeline's data share with their summaries
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-timeline-data.h"

G_BEGIN_DECLS

/* The summary, built when the data are finished and read by every layout. Level l ≥ 1
 * has one block per FAN^l events (whole blocks only, counted
 * from the first event of the data, so a block may straddle two lanes; such a block never
 * lies inside a range of one lane and is never read). A range of n events is covered by
 * at most 2 (FAN − 1) units of each level. */
#define BPW_TIMELINE_FAN_BITS 5
#define BPW_TIMELINE_FAN (1u << BPW_TIMELINE_FAN_BITS)
#define BPW_TIMELINE_MAX_LEVELS 6

typedef struct
{
  guint32  n;                                  /* blocks */
  double  *max_dur;                            /* the longest event's duration */
  double  *max_end;
  guint32 *longest;                            /* the longest event (the first of equals) */
  gint64  *ticks[BPW_TIMELINE_N_COLORINGS];    /* n_keys per block: time per key */
} BpwTimelineLevel;

struct _BpwTimelineSummary
{
  guint32 n_events;                            /* the data's when it was built */
  guint32 *ticks;                              /* each event's bpw_timeline_data_ticks (),
                                                * G_MAXUINT32 for as many or more: what a
                                                * scan of the events reads, in 4 bytes */
  guint   n_keys[BPW_TIMELINE_N_COLORINGS];
  guint   n_levels;
  BpwTimelineLevel level[BPW_TIMELINE_MAX_LEVELS + 1];  /* 1 … n_levels */
};

/* Sets data->ticks_per_s and data->summary from the finished, sorted events. */
void  _bpw_timeline_summary_build (BpwTimelineData    *data);
void  _bpw_timeline_summary_free  (BpwTimelineSummary *summary);
/* Rebuilds the summary when events were added to finished data since it was built (the
 * queries stay right without it, only slower: they read such events one by one). */
void  _bpw_timeline_summary_ensure (BpwTimelineData   *data);

G_END_DECLS
