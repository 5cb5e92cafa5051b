/* bpw-profile-private.h — what the profile's source files share while building one
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bpw-profile.h"

G_BEGIN_DECLS

/* Nesting deeper than this on one lane is cut: a deeper slice gets no parent. */
#define BPW_PROFILE_MAX_NESTING 256
/* "Input Dims": at most this many inputs per op and dimensions per input are kept. */
#define BPW_PROFILE_MAX_INPUTS 32
#define BPW_PROFILE_MAX_RANK   16

BpwProfile *_bpw_profile_new     (const char *filename);
guint32     _bpw_profile_intern  (BpwProfile *profile,
                                  const char *str);
/* bpw-profile-read.c: events in µs from the file's origin (start is the raw ts until
 * _bpw_profile_finish), lanes, metadata, the format. */
gboolean    _bpw_profile_read    (BpwProfile *profile,
                                  BpwJsonDoc *doc,
                                  GError    **error);
/* bpw-profile.c: sorts lanes, finds parents, converts to seconds, classifies names. */
void        _bpw_profile_finish  (BpwProfile *profile);
/* bpw-profile-items.c: derives the work items and the devices. */
void        _bpw_profile_build_items (BpwProfile *profile);
/* The matmul shape of a framework op from its name and "Input Dims"; FALSE if unknown. */
gboolean    _bpw_profile_op_shape (const BpwProfile      *profile,
                                   const BpwProfileEvent *event,
                                   double                *batch,
                                   double                *m,
                                   double                *k,
                                   double                *n);
/* bpw-profile-meta.c: the format by content, and the metadata of an object root
 * (nullable for a bare array). */
BpwProfileFormat _bpw_profile_detect_format (JsonObject *root,
                                             JsonArray  *events);
void        _bpw_profile_read_meta (BpwProfile *profile,
                                    JsonObject *root);
/* bpw-profile-args.c: a number, or a string holding one (spaces around it allowed);
 * FALSE for anything else or a non-finite value. */
gboolean    _bpw_profile_parse_number (const char *str,
                                       double     *out);
/* Best-effort readers of args and metadata: an integer (JSON integer or numeric string)
 * or -1; a number or NAN; a string or NULL. */
gint64      _bpw_profile_arg_int    (JsonObject *object,
                                     const char *member);
double      _bpw_profile_arg_double (JsonObject *object,
                                     const char *member);
const char *_bpw_profile_obj_string (JsonObject *object,
                                     const char *member);
/* Whether @name opens an optimizer step (torch.optim's record_function). */
gboolean    _bpw_profile_is_optimizer_scope (const char *name);

G_END_DECLS
