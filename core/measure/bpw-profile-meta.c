/* bpw-profile-meta.c — which format a trace is, and where and with what it was taken
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-profile-meta"

#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-profile-private.h"

#define DETECT_EVENTS 4096

static gboolean
scan_format (JsonObject *root, JsonArray *events)
{
  static const char * const kineto_cats[] = {
    "cpu_op", "kernel", "cuda_runtime", "user_annotation", "python_function", "gpu_memcpy",
    "gpu_memset", "cuda_driver", "Operator", "Kernel", "Runtime", NULL
  };

  if (root != NULL && (json_object_has_member (root, "schemaVersion") ||
                       json_object_has_member (root, "deviceProperties") ||
                       json_object_has_member (root, "distributedInfo")))
    return TRUE;
  for (guint i = 0; i < MIN (json_array_get_length (events), DETECT_EVENTS); i++)
    {
      JsonNode *n = json_array_get_element (events, i);
      const char *cat = JSON_NODE_HOLDS_OBJECT (n)
                        ? _bpw_profile_obj_string (json_node_get_object (n), "cat") : NULL;

      if (cat != NULL && g_strv_contains (kineto_cats, cat))
        return TRUE;
    }
  return FALSE;
}

BpwProfileFormat
_bpw_profile_detect_format (JsonObject *root,
                            JsonArray  *events)
{
  gboolean aten = FALSE;

  if (scan_format (root, events))
    return BPW_PROFILE_FORMAT_PYTORCH;
  for (guint i = 0; i < MIN (json_array_get_length (events), DETECT_EVENTS); i++)
    {
      JsonNode *n = json_array_get_element (events, i);
      JsonObject *o = JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
      JsonNode *args = o != NULL ? json_object_get_member (o, "args") : NULL;
      const char *name = o != NULL ? _bpw_profile_obj_string (o, "name") : NULL;

      /* bpw_trace_write's slices: lineage (which an edited copy may lack), micro-batch,
       * bottleneck class. */
      if (args != NULL && JSON_NODE_HOLDS_OBJECT (args) &&
          json_object_has_member (json_node_get_object (args), "micro_batch") &&
          json_object_has_member (json_node_get_object (args), "bottleneck"))
        return BPW_PROFILE_FORMAT_BPW;
      aten |= name != NULL && (g_str_has_prefix (name, "aten::") ||
                               g_str_has_prefix (name, "autograd::"));
    }
  return aten ? BPW_PROFILE_FORMAT_PYTORCH_LEGACY : BPW_PROFILE_FORMAT_CHROME;
}

/* Metadata: kineto's header fields, Chrome's "metadata", and the keys a user adds with
 * prof.add_metadata_json() or in "otherData" (hardware, framework, driver, runtime, date). */
static void
set_meta (char **field, const char *value)
{
  if (*field == NULL && value != NULL && value[0] != '\0')
    *field = g_utf8_make_valid (value, -1);
}

static void
read_custom_meta (BpwProfileMeta *meta, JsonObject *obj)
{
  const char *torch;

  if (obj == NULL)
    return;
  set_meta (&meta->hardware, _bpw_profile_obj_string (obj, "hardware"));
  set_meta (&meta->framework, _bpw_profile_obj_string (obj, "framework"));
  set_meta (&meta->driver, _bpw_profile_obj_string (obj, "driver"));
  set_meta (&meta->runtime, _bpw_profile_obj_string (obj, "runtime"));
  set_meta (&meta->date, _bpw_profile_obj_string (obj, "date"));
  set_meta (&meta->hardware, _bpw_profile_obj_string (obj, "cpu-brand"));
  set_meta (&meta->driver, _bpw_profile_obj_string (obj, "gpu-driver"));
  set_meta (&meta->framework, _bpw_profile_obj_string (obj, "product-version"));
  set_meta (&meta->date, _bpw_profile_obj_string (obj, "trace-capture-datetime"));
  torch = _bpw_profile_obj_string (obj, "pytorch_version");
  if (torch == NULL)
    torch = _bpw_profile_obj_string (obj, "torch_version");
  if (torch != NULL && meta->framework == NULL)
    meta->framework = g_strdup_printf ("PyTorch %s", torch);
}

static char *
cuda_version (JsonObject *root, const char *member, const char *what)
{
  gint64 v = _bpw_profile_arg_int (root, member);

  return v > 0 ? g_strdup_printf ("%s %" G_GINT64_FORMAT ".%" G_GINT64_FORMAT, what, v / 1000,
                                  v % 1000 / 10) : NULL;
}

static void
read_devices (BpwProfileMeta *meta, JsonArray *devices)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *previous = NULL;
  guint same = 0;

  for (guint i = 0; i <= json_array_get_length (devices); i++)
    {
      JsonNode *n = i < json_array_get_length (devices) ? json_array_get_element (devices, i)
                                                          : NULL;
      JsonObject *d = n != NULL && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
      const char *name = _bpw_profile_obj_string (d, "name");
      gint64 major = _bpw_profile_arg_int (d, "computeMajor");
      gint64 minor = _bpw_profile_arg_int (d, "computeMinor");
      g_autofree char *desc = name == NULL ? NULL : major >= 0 && minor >= 0
                              ? g_strdup_printf ("%s (sm_%" G_GINT64_FORMAT "%" G_GINT64_FORMAT
                                                 ")", name, major, minor) : g_strdup (name);

      if (previous != NULL && (desc == NULL || strcmp (desc, previous) != 0))
        {
          g_string_append_printf (out, "%s%s", out->len > 0 ? ", " : "", previous);
          if (same > 1)
            g_string_append_printf (out, " ×%u", same);
          g_clear_pointer (&previous, g_free);
        }
      if (desc != NULL && previous == NULL)
        {
          previous = g_steal_pointer (&desc);
          same = 0;
        }
      same += previous != NULL;
    }
  if (out->len > 0)
    set_meta (&meta->hardware, out->str);
}

void
_bpw_profile_read_meta (BpwProfile *p,
                        JsonObject *root)
{
  BpwProfileMeta *m = &p->meta;
  JsonNode *n;
  double base;

  read_custom_meta (m, root);
  if (root != NULL)
    {
      if ((n = json_object_get_member (root, "deviceProperties")) != NULL &&
          JSON_NODE_HOLDS_ARRAY (n))
        read_devices (m, json_node_get_array (n));
      if ((n = json_object_get_member (root, "distributedInfo")) != NULL &&
          JSON_NODE_HOLDS_OBJECT (n))
        {
          JsonObject *d = json_node_get_object (n);

          set_meta (&m->backend, _bpw_profile_obj_string (d, "backend"));
          m->rank = _bpw_profile_arg_int (d, "rank");
          m->world_size = _bpw_profile_arg_int (d, "world_size");
        }
      if (m->driver == NULL)
        m->driver = cuda_version (root, "cuda_driver_version", "CUDA driver");
      if (m->runtime == NULL)
        m->runtime = cuda_version (root, "cuda_runtime_version", "CUDA runtime");
      base = _bpw_profile_arg_double (root, "baseTimeNanoseconds");
      if (m->date == NULL && isfinite (base) && base > 0 && base < 4e18)
        {
          g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc ((gint64) (base / 1e9));

          if (dt != NULL)
            m->date = g_date_time_format (dt, "%Y-%m-%dT%H:%M:%SZ");
        }
      set_meta (&m->trace_name, _bpw_profile_obj_string (root, "traceName"));
      if ((n = json_object_get_member (root, "otherData")) != NULL && JSON_NODE_HOLDS_OBJECT (n))
        read_custom_meta (m, json_node_get_object (n));
      if ((n = json_object_get_member (root, "metadata")) != NULL && JSON_NODE_HOLDS_OBJECT (n))
        read_custom_meta (m, json_node_get_object (n));
    }
  if (p->format == BPW_PROFILE_FORMAT_BPW)
    set_meta (&m->framework, "Blueprint Workbench (simulated schedule)");
  if (p->format == BPW_PROFILE_FORMAT_PYTORCH_LEGACY)
    set_meta (&m->framework, "PyTorch (autograd profiler, no kineto)");
}

