/* bpw-link-share.h — fair shares of one link among the transfers on it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A link (one rank's port on one interconnect tier) carries the transfers of several
 * parallel groups. Transfers of one group run in order (one communicator: NCCL runs a
 * communicator's collectives one after the other); the groups' current transfers share
 * the link's bandwidth equally while they are active: processor sharing, the max-min fair
 * share of a single bottleneck link (Kleinrock 1967; Bertsekas & Gallager, "Data
 * Networks", §6.5). With n active, each advances at 1/n of its full rate, so every arrival
 * and every departure changes the finish of every active transfer, the earlier ones' as
 * well as the later ones'.
 *
 * Work is in seconds at the full rate (the transfer's duration on an idle link): each
 * transfer receives exactly its work of service, so the bytes are conserved and sharing
 * only adds time. A transfer that never shares the link ends at start + work exactly (the
 * arithmetic of an unshared link, bit for bit).
 *
 * The sweep visits each arrival and departure once: O(events · k), k the groups on the
 * link (at most BPW_LINK_MAX_GROUPS), events at most twice the transfers.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define BPW_LINK_MAX_GROUPS 8

/* BpwLinkFlow.behind: what set the start. */
#define BPW_LINK_READY     (-1)  /* its own ready time */
#define BPW_LINK_EARLIER   (-2)  /* its group's transfer finished before the sweep */

typedef struct
{
  double   ready;     /* may start then, its group's previous transfer permitting */
  double   work;      /* s at the full rate */
  double   left;      /* s of work still to serve */
  double   floor;     /* ends no earlier (a synchronised or pinned end); 0: none */
  double   start;     /* out: when it is first served */
  double   end;       /* out: its work done (and @floor reached); 0 while it runs */
  gint32   behind;    /* out: index of the flow whose end set @start, or BPW_LINK_* */
  guint8   group;     /* < BPW_LINK_MAX_GROUPS */
  guint8   started;
  guint8   shared;    /* was ever served beside another */
  guint8   done;
} BpwLinkFlow;

/* Serves @flows (in arrival order: a group's in its own order) from @from until @until
 * (G_MAXDOUBLE: until all are done), group_free[g] the end of group g's transfer that
 * finished before (updated as flows finish). Flows are started and finished in place;
 * @left falls by the service each receives. Returns the time reached. */
double bpw_link_share_sweep (BpwLinkFlow *flows,
                             guint        n_flows,
                             double       from,
                             double       until,
                             double       group_free[BPW_LINK_MAX_GROUPS]);

/* A flow ready at @ready with @work of service, in @group. */
static inline BpwLinkFlow
bpw_link_flow (double ready, double work, guint group)
{
  return (BpwLinkFlow) { .ready = ready, .work = work, .left = work,
                         .behind = BPW_LINK_READY, .group = (guint8) group };
}

G_END_DECLS
