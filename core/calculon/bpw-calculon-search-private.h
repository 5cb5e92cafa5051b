/* bpw-calculon-search-private.h — the indexed space of Calculon's search, and its cursor
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-calculon-search.h"
#include "bpw-json-writer.h"

G_BEGIN_DECLS

/* One of Calculon's outer tuples (what it hands a pool worker) with the choices its
 * search() loops over, in loop order. */
typedef struct
{
  gint64             tp, pp, dp, v, batch;
  BpwRecompute       recompute;
  gboolean           sharding;
  BpwCalculonTpComm  comm;
  guint8             n_redo, n_dpov, n_tpov, n_wo, n_ao, n_oo, n_fused;
  guint8             redo[2], dpov[2], tpov[3], wo[2], ao[2], oo[2], fused[2];
  guint              first_mbs, n_mbs;   /* into the space's micro-batch sizes */
  guint              n_tn, n_pn, n_dn;
  guint64            first, count;       /* global indices */
} BpwCalculonParams;

/* The digits of an execution inside its tuple, outermost first. */
enum
{
  BPW_CALCULON_D_REDO,
  BPW_CALCULON_D_DPOV,
  BPW_CALCULON_D_TPOV,
  BPW_CALCULON_D_WO,
  BPW_CALCULON_D_AO,
  BPW_CALCULON_D_OO,
  BPW_CALCULON_D_FUSED,
  BPW_CALCULON_D_MBS,
  BPW_CALCULON_D_TN,
  BPW_CALCULON_D_PN,
  BPW_CALCULON_D_DN,
  BPW_CALCULON_N_DIGITS
};

struct _BpwCalculonSpace
{
  BpwCalculonApp           app;
  BpwCalculonSystem        system;
  gint64                   num_procs, max_batch;
  BpwDType                 datatype;
  BpwCalculonSearchOptions options;
  GArray                  *params;   /* BpwCalculonParams, by index */
  GArray                  *mbs;      /* gint64 */
  guint64                  size;
  guint                    max_block_keys;   /* the most blocks a tuple has */
  char                    *fingerprint;
};

typedef struct
{
  guint params;
  guint radix[BPW_CALCULON_N_DIGITS];
  guint digit[BPW_CALCULON_N_DIGITS];
} BpwCalculonCursor;

void     _bpw_calculon_params_radix     (const BpwCalculonParams *p,
                                         guint                   *radix);
void     _bpw_calculon_cursor_seek      (const BpwCalculonSpace  *space,
                                         guint64                  index,
                                         BpwCalculonCursor       *c);
gboolean _bpw_calculon_cursor_next      (const BpwCalculonSpace  *space,
                                         BpwCalculonCursor       *c);
void     _bpw_calculon_cursor_execution (const BpwCalculonSpace  *space,
                                         const BpwCalculonCursor *c,
                                         BpwCalculonExecution    *exe);

gboolean _bpw_calculon_result_before    (const BpwCalculonSearchResult *a,
                                         const BpwCalculonSearchResult *b);
void     _bpw_calculon_best_insert      (GArray                        *best,
                                         guint                          n,
                                         const BpwCalculonSearchResult *r);

/* Writes more members into best entry @i of the document. */
typedef void (*BpwCalculonEntryWriteFunc) (BpwJsonWriter *w,
                                           guint          i,
                                           gconstpointer  user_data);
char    *_bpw_calculon_search_report_write (const BpwCalculonSearchReport *report,
                                            const BpwCalculonSpace        *space,
                                            BpwCalculonEntryWriteFunc      extra,
                                            gconstpointer                  user_data);

G_END_DECLS
