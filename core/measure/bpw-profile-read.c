/* bpw-profile-read.c — trace JSON to flat events: slices, B/E pairs, lanes, metadata
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Exporters disagree in the small things, and a viewer shrugs them off, so this reader
 * does too where the meaning is clear: ts, dur, pid and tid as numbers or as numeric
 * strings ("ts": "12.5", "pid": "CPU functions"), a missing name, cat, pid or tid, a
 * missing dur on an "X" slice (0, with a warning), phases that carry no slice (counters,
 * flows, instants, async), "E" events without their "B" and "B" events never closed
 * (skipped, with a warning), args of any shape (what is not understood is left out).
 * What makes a slice impossible to place is a located error: an event that is not an
 * object, a "ph" or "name" that is not a string, a ts or dur that is not a number (or is
 * negative, or beyond 10^17 µs), a pid or tid that is neither an integer nor a string.
 */
#define G_LOG_DOMAIN "bpw-profile-read"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-error.h"
#include "bpw-i18n.h"
#include "bpw-profile-private.h"

#define MAX_TS_US 1e17

typedef struct
{
  guint32     lane;
  double      ts;
  guint       index;
  gboolean    begin;
  JsonObject *event;
} Mark;

typedef struct
{
  BpwProfile  *p;
  BpwJsonDoc  *doc;
  const char  *prefix;        /* "traceEvents" or "" for a bare array */
  GHashTable  *lanes;         /* "pid\x1ftid" -> lane index + 1 */
  GHashTable  *string_ids;    /* string pid or tid -> its negative id */
  GHashTable  *process_names; /* pid key -> string index + 1 */
  GHashTable  *correlation;   /* runtime "correlation" -> "External id" */
  GHashTable  *kernel_corr;   /* kernel event index -> its "correlation" */
  GArray      *marks;         /* Mark */
} Reader;

static gboolean
fail (Reader *r, JsonNode *node, guint i, const char *member, GError **error,
      const char *reason, const char *got)
{
  g_autofree char *path = member != NULL ? g_strdup_printf ("%s[%u].%s", r->prefix, i, member)
                                         : g_strdup_printf ("%s[%u]", r->prefix, i);

  if (got != NULL)
    return bpw_json_doc_error (r->doc, node, path, error, _("%s, got %s"), reason, got);
  return bpw_json_doc_error (r->doc, node, path, error, "%s", reason);
}

/* A number, or a string holding one. FALSE with an error for anything else; *found FALSE
 * when absent or null. */
static gboolean
read_number (Reader *r, JsonObject *obj, guint i, const char *member, double min,
             double *out, gboolean *found, GError **error)
{
  JsonNode *node = json_object_get_member (obj, member);
  g_autofree char *got = NULL;
  gboolean ok = FALSE;

  *found = FALSE;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (JSON_NODE_HOLDS_VALUE (node))
    {
      GType t = json_node_get_value_type (node);

      if (t == G_TYPE_INT64 || t == G_TYPE_DOUBLE)
        {
          *out = json_node_get_double (node);
          ok = TRUE;
        }
      else if (t == G_TYPE_STRING)
        ok = _bpw_profile_parse_number (json_node_get_string (node), out);
    }
  if (ok && *out >= min && fabs (*out) <= MAX_TS_US)
    {
      *found = TRUE;
      return TRUE;
    }
  got = bpw_json_doc_describe_node (node);
  return fail (r, node, i, member, error, min >= 0 ? _("expected a non-negative number of µs")
                                                   : _("expected a number of µs"), got);
}

/* pid or tid: its key for lanes and its number (a string gets a negative id of its own). */
static gboolean
read_id (Reader *r, JsonObject *obj, guint i, const char *member, GString *key, gint64 *number,
         GError **error)
{
  JsonNode *node = json_object_get_member (obj, member);
  g_autofree char *got = NULL;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      g_string_append (key, "n0");
      *number = 0;
      return TRUE;
    }
  if (JSON_NODE_HOLDS_VALUE (node))
    {
      GType t = json_node_get_value_type (node);
      double v = t == G_TYPE_DOUBLE ? json_node_get_double (node) : 0;

      if (t == G_TYPE_INT64 || (t == G_TYPE_DOUBLE && v == floor (v) && fabs (v) < 9e15))
        {
          *number = t == G_TYPE_INT64 ? json_node_get_int (node) : (gint64) v;
          g_string_append_printf (key, "n%" G_GINT64_FORMAT, *number);
          return TRUE;
        }
      if (t == G_TYPE_STRING)
        {
          const char *s = json_node_get_string (node);
          gpointer id = g_hash_table_lookup (r->string_ids, s);

          if (id == NULL)
            {
              id = GINT_TO_POINTER (g_hash_table_size (r->string_ids) + 1);
              g_hash_table_insert (r->string_ids, g_strdup (s), id);
            }
          *number = -(gint64) GPOINTER_TO_INT (id);
          g_string_append_printf (key, "s%s", s);
          return TRUE;
        }
    }
  got = bpw_json_doc_describe_node (node);
  return fail (r, node, i, member, error, _("expected an integer or a string"), got);
}

static gboolean
read_lane (Reader *r, JsonObject *obj, guint i, guint32 *lane, GString *pid_key, GError **error)
{
  g_autoptr(GString) key = g_string_new (NULL);
  BpwProfileLane l = { 0 };
  gpointer found;

  if (!read_id (r, obj, i, "pid", key, &l.pid, error))
    return FALSE;
  g_string_assign (pid_key, key->str);
  g_string_append_c (key, '\x1f');
  if (!read_id (r, obj, i, "tid", key, &l.tid, error))
    return FALSE;
  found = g_hash_table_lookup (r->lanes, key->str);
  if (found != NULL)
    {
      *lane = GPOINTER_TO_UINT (found) - 1;
      return TRUE;
    }
  /* The names as written, until metadata names them. */
  l.process_name = _bpw_profile_intern (r->p, pid_key->str + 1);
  l.thread_name = _bpw_profile_intern (r->p, key->str + pid_key->len + 2);
  *lane = r->p->lanes->len;
  g_array_append_val (r->p->lanes, l);
  g_hash_table_insert (r->lanes, g_strdup (key->str), GUINT_TO_POINTER (*lane + 1));
  return TRUE;
}

static BpwProfileEventType
event_type (const char *cat, BpwProfileFormat format)
{
  static const struct { const char *cat; BpwProfileEventType type; } cats[] = {
    { "kernel", BPW_PROFILE_EVENT_KERNEL }, { "gpu_memcpy", BPW_PROFILE_EVENT_MEMCPY },
    { "memcpy", BPW_PROFILE_EVENT_MEMCPY }, { "gpu_memset", BPW_PROFILE_EVENT_MEMSET },
    { "memset", BPW_PROFILE_EVENT_MEMSET }, { "cuda_runtime", BPW_PROFILE_EVENT_RUNTIME },
    { "runtime", BPW_PROFILE_EVENT_RUNTIME }, { "cuda_driver", BPW_PROFILE_EVENT_RUNTIME },
    { "cuda_sync", BPW_PROFILE_EVENT_RUNTIME }, { "overhead", BPW_PROFILE_EVENT_RUNTIME },
    { "user_annotation", BPW_PROFILE_EVENT_ANNOTATION },
    { "gpu_user_annotation", BPW_PROFILE_EVENT_ANNOTATION },
    { "python_function", BPW_PROFILE_EVENT_ANNOTATION },
    { "trace", BPW_PROFILE_EVENT_ANNOTATION },
  };

  if (cat == NULL || format == BPW_PROFILE_FORMAT_BPW)
    return BPW_PROFILE_EVENT_HOST;
  for (guint i = 0; i < G_N_ELEMENTS (cats); i++)
    if (g_ascii_strcasecmp (cat, cats[i].cat) == 0)
      return cats[i].type;
  return BPW_PROFILE_EVENT_HOST;
}

/* "Input Dims" (kineto) or "Input dims" (PyTorch before 1.11): one array per input. */
static void
read_dims (BpwProfile *p, JsonObject *args, BpwProfileEvent *e)
{
  JsonNode *node = json_object_get_member (args, "Input Dims");
  JsonArray *inputs;

  if (node == NULL)
    node = json_object_get_member (args, "Input dims");
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return;
  inputs = json_node_get_array (node);
  e->dims_first = p->dims->len;
  for (guint i = 0; i < json_array_get_length (inputs) && i < BPW_PROFILE_MAX_INPUTS; i++)
    {
      JsonNode *in = json_array_get_element (inputs, i);
      guint at = p->dims->len;
      gint64 rank = 0;

      g_array_append_val (p->dims, rank);
      if (JSON_NODE_HOLDS_ARRAY (in))
        for (guint d = 0; d < json_array_get_length (json_node_get_array (in)) &&
                          rank < BPW_PROFILE_MAX_RANK; d++)
          {
            JsonNode *dn = json_array_get_element (json_node_get_array (in), d);
            gint64 v;

            if (!JSON_NODE_HOLDS_VALUE (dn) || json_node_get_value_type (dn) != G_TYPE_INT64 ||
                (v = json_node_get_int (dn)) < 0)
              continue;
            g_array_append_val (p->dims, v);
            rank++;
          }
      g_array_index (p->dims, gint64, at) = rank;
      e->n_inputs++;
    }
}

static gboolean
add_event (Reader *r, JsonObject *obj, JsonObject *end_obj, guint i, guint32 lane, double ts,
           double dur, GError **error)
{
  BpwProfile *p = r->p;
  JsonNode *name_node = json_object_get_member (obj, "name");
  JsonNode *args_node = json_object_get_member (obj, "args");
  JsonObject *args = args_node != NULL && JSON_NODE_HOLDS_OBJECT (args_node)
                     ? json_node_get_object (args_node) : NULL;
  const char *name = "", *cat = _bpw_profile_obj_string (obj, "cat");
  BpwProfileEvent e = {
    .start = ts, .duration = dur, .lane = lane, .parent = -1, .external_id = -1,
    .correlation = -1, .lineage = -1, .stream = -1, .flops = NAN, .bytes = NAN, .micro_batch = -1, .item = -1,
    .device = -1,
  };

  if ((name_node == NULL || JSON_NODE_HOLDS_NULL (name_node)) && end_obj != NULL)
    name_node = json_object_get_member (end_obj, "name");
  if (name_node != NULL && !JSON_NODE_HOLDS_NULL (name_node))
    {
      if (!JSON_NODE_HOLDS_VALUE (name_node) ||
          json_node_get_value_type (name_node) != G_TYPE_STRING)
        {
          g_autofree char *got = bpw_json_doc_describe_node (name_node);
          return fail (r, name_node, i, "name", error, _("expected a string"), got);
        }
      name = json_node_get_string (name_node);
    }
  if (args == NULL && end_obj != NULL && (args_node = json_object_get_member (end_obj, "args"))
      != NULL && JSON_NODE_HOLDS_OBJECT (args_node))
    args = json_node_get_object (args_node);

  e.name = _bpw_profile_intern (p, name);
  e.category = _bpw_profile_intern (p, cat != NULL ? cat : "");
  e.type = event_type (cat, p->format);
  if (args != NULL)
    {
      gint64 device = _bpw_profile_arg_int (args, "device"), corr;

      e.external_id = _bpw_profile_arg_int (args, "External id");
      e.stream = _bpw_profile_arg_int (args, "stream");
      if (p->format == BPW_PROFILE_FORMAT_BPW)
        {
          e.lineage = _bpw_profile_arg_int (args, "lineage");
          e.micro_batch = (gint32) CLAMP (_bpw_profile_arg_int (args, "micro_batch"), -1,
                                          G_MAXINT32);
          e.flops = _bpw_profile_arg_double (args, "flops");
          e.bytes = _bpw_profile_arg_double (args, "bytes");
        }
      read_dims (p, args, &e);
      corr = _bpw_profile_arg_int (args, "correlation");
      e.correlation = corr;
      if (e.type == BPW_PROFILE_EVENT_RUNTIME && corr >= 0 && e.external_id >= 0)
        g_hash_table_insert (r->correlation, g_memdup2 (&corr, sizeof corr),
                             g_memdup2 (&e.external_id, sizeof e.external_id));
      if (e.type == BPW_PROFILE_EVENT_KERNEL && corr >= 0 && e.external_id < 0)
        g_hash_table_insert (r->kernel_corr, GUINT_TO_POINTER (p->events->len + 1),
                             g_memdup2 (&corr, sizeof corr));
      if (e.type != BPW_PROFILE_EVENT_HOST && e.type != BPW_PROFILE_EVENT_RUNTIME &&
          e.type != BPW_PROFILE_EVENT_ANNOTATION)
        e.device = (gint32) CLAMP (device, -1, G_MAXINT32);
    }
  if (e.device < 0 && (e.type == BPW_PROFILE_EVENT_KERNEL || e.type == BPW_PROFILE_EVENT_MEMCPY ||
                       e.type == BPW_PROFILE_EVENT_MEMSET))
    e.device = (gint32) CLAMP (g_array_index (p->lanes, BpwProfileLane, lane).pid, 0, G_MAXINT32);
  g_array_append_val (p->events, e);
  return TRUE;
}

static void
read_metadata_event (Reader *r, JsonObject *obj, guint32 lane, const char *pid_key)
{
  const char *what = _bpw_profile_obj_string (obj, "name");
  JsonNode *args = json_object_get_member (obj, "args");
  const char *name = args != NULL && JSON_NODE_HOLDS_OBJECT (args)
                     ? _bpw_profile_obj_string (json_node_get_object (args), "name") : NULL;
  BpwProfileLane *l = &g_array_index (r->p->lanes, BpwProfileLane, lane);

  if (what == NULL || name == NULL)
    return;
  if (strcmp (what, "process_name") == 0)
    g_hash_table_insert (r->process_names, g_strdup (pid_key),
                         GUINT_TO_POINTER (_bpw_profile_intern (r->p, name) + 1));
  else if (strcmp (what, "thread_name") == 0)
    l->thread_name = _bpw_profile_intern (r->p, name);
}

static gboolean
read_event (Reader *r, JsonNode *node, guint i, GString *pid_key, GError **error)
{
  JsonObject *obj;
  JsonNode *ph_node;
  const char *ph;
  double ts = 0, dur = 0;
  gboolean found;
  guint32 lane;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_autofree char *got = bpw_json_doc_describe_node (node);
      return fail (r, node, i, NULL, error, _("expected an object (a trace event)"), got);
    }
  obj = json_node_get_object (node);
  ph_node = json_object_get_member (obj, "ph");
  if (ph_node == NULL || JSON_NODE_HOLDS_NULL (ph_node))
    {
      r->p->ignored++;
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_VALUE (ph_node) || json_node_get_value_type (ph_node) != G_TYPE_STRING)
    {
      g_autofree char *got = bpw_json_doc_describe_node (ph_node);
      return fail (r, ph_node, i, "ph", error, _("expected a phase string such as \"X\""), got);
    }
  ph = json_node_get_string (ph_node);
  if (ph[0] == '\0' || ph[1] != '\0' || strchr ("XBEM", ph[0]) == NULL)
    {
      r->p->ignored++;
      return TRUE;
    }
  if (!read_lane (r, obj, i, &lane, pid_key, error))
    return FALSE;
  if (ph[0] == 'M')
    {
      read_metadata_event (r, obj, lane, pid_key->str);
      return TRUE;
    }
  if (!read_number (r, obj, i, "ts", -MAX_TS_US, &ts, &found, error))
    return FALSE;
  if (!found)
    return fail (r, node, i, NULL, error, _("missing required field 'ts' (µs)"), NULL);
  if (r->p->events->len + r->marks->len >= BPW_PROFILE_MAX_EVENTS)
    return fail (r, node, i, NULL, error, _("too many slices: the limit is 4000000"), NULL);
  if (ph[0] != 'X')
    {
      Mark m = { lane, ts, i, ph[0] == 'B', obj };

      g_array_append_val (r->marks, m);
      return TRUE;
    }
  if (!read_number (r, obj, i, "dur", 0, &dur, &found, error))
    return FALSE;
  if (!found && r->p->warnings->len < 100)
    g_ptr_array_add (r->p->warnings,
                     g_strdup_printf (_("%s[%u]: an \"X\" slice without \"dur\"; taken as 0 µs"),
                                      r->prefix, i));
  return add_event (r, obj, NULL, i, lane, ts, dur, error);
}

static int
compare_marks (gconstpointer a, gconstpointer b)
{
  const Mark *x = a, *y = b;

  if (x->lane != y->lane)
    return x->lane < y->lane ? -1 : 1;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* "B"/"E" pairs per lane, in time order: an "E" closes the latest open "B" (the Trace
 * Event Format's rule), whatever its name says. */
static gboolean
pair_marks (Reader *r, GError **error)
{
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint));
  guint unmatched = 0, open = 0;

  g_array_sort (r->marks, compare_marks);
  for (guint i = 0; i < r->marks->len; i++)
    {
      const Mark *m = &g_array_index (r->marks, Mark, i);

      if (i > 0 && g_array_index (r->marks, Mark, i - 1).lane != m->lane)
        {
          open += stack->len;
          g_array_set_size (stack, 0);
        }
      if (m->begin)
        g_array_append_val (stack, i);
      else if (stack->len == 0)
        unmatched++;
      else
        {
          const Mark *b = &g_array_index (r->marks, Mark, g_array_index (stack, guint,
                                                                         stack->len - 1));

          g_array_set_size (stack, stack->len - 1);
          if (!add_event (r, b->event, m->event, b->index, b->lane, b->ts, m->ts - b->ts, error))
            return FALSE;
        }
    }
  open += stack->len;
  if (unmatched > 0)
    g_ptr_array_add (r->p->warnings, g_strdup_printf (_("%u \"E\" events without an open \"B\" "
                                                      "on their thread were skipped"), unmatched));
  if (open > 0)
    g_ptr_array_add (r->p->warnings, g_strdup_printf (_("%u \"B\" events never closed by an "
                                                      "\"E\" were skipped"), open));
  return TRUE;
}

static void
resolve (Reader *r)
{
  GHashTableIter it;
  gpointer k, value;

  /* Kernels that name only their runtime call's correlation id get its op's External id. */
  g_hash_table_iter_init (&it, r->kernel_corr);
  while (g_hash_table_iter_next (&it, &k, &value))
    {
      gint64 *ext = g_hash_table_lookup (r->correlation, value);

      if (ext != NULL)
        g_array_index (r->p->events, BpwProfileEvent, GPOINTER_TO_UINT (k) - 1).external_id =
          *ext;
    }
  for (guint i = 0; i < r->p->lanes->len; i++)
    {
      BpwProfileLane *l = &g_array_index (r->p->lanes, BpwProfileLane, i);
      g_autofree char *key = l->pid >= 0 ? g_strdup_printf ("n%" G_GINT64_FORMAT, l->pid)
                                         : g_strconcat ("s", bpw_profile_string (r->p,
                                                        l->process_name), NULL);
      gpointer name = g_hash_table_lookup (r->process_names, key);

      if (name != NULL)
        l->process_name = GPOINTER_TO_UINT (name) - 1;
    }
}

gboolean
_bpw_profile_read (BpwProfile  *p,
                   BpwJsonDoc  *doc,
                   GError     **error)
{
  JsonNode *root = bpw_json_doc_get_root (doc);
  JsonObject *obj = NULL;
  JsonArray *events;
  g_autoptr(GString) pid_key = g_string_new (NULL);
  Reader r = { .p = p, .doc = doc, .prefix = "" };
  gboolean ok = TRUE;

  if (JSON_NODE_HOLDS_OBJECT (root))
    {
      obj = json_node_get_object (root);
      events = bpw_json_doc_get_array (doc, obj, "", "traceEvents", TRUE, error);
      if (events == NULL)
        return FALSE;
      r.prefix = "traceEvents";
    }
  else if (JSON_NODE_HOLDS_ARRAY (root))
    events = json_node_get_array (root);
  else
    {
      g_autofree char *got = bpw_json_doc_describe_node (root);
      return bpw_json_doc_error (doc, root, "", error, _("expected a trace: an object with "
                                 "\"traceEvents\" or an array of events, got %s"), got);
    }

  p->format = _bpw_profile_detect_format (obj, events);
  _bpw_profile_read_meta (p, obj);
  r.lanes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  r.string_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  r.process_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  r.correlation = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  r.kernel_corr = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  r.marks = g_array_new (FALSE, FALSE, sizeof (Mark));

  for (guint i = 0; ok && i < json_array_get_length (events); i++)
    ok = read_event (&r, json_array_get_element (events, i), i, pid_key, error);
  if (ok)
    ok = pair_marks (&r, error);
  if (ok)
    resolve (&r);

  g_hash_table_unref (r.lanes);
  g_hash_table_unref (r.string_ids);
  g_hash_table_unref (r.process_names);
  g_hash_table_unref (r.correlation);
  g_hash_table_unref (r.kernel_corr);
  g_array_unref (r.marks);
  return ok;
}
