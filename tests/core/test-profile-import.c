/* test-profile-import.c — Chrome, Perfetto and PyTorch traces in their variants, and
 * located refusals of broken ones
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fixtures are in tests/data/profiles: chrome-events.json (object form, metadata
 * events, nested slices, a "B"/"E" pair, an unmatched "E", a "B" never closed, a slice
 * without "dur", numeric strings, string pid/tid, counters and instants), chrome-array.json
 * (a bare array with nesting "B"/"E" pairs), kineto-gpu.json (a PyTorch GPU trace in
 * kineto's layout: deviceProperties, distributedInfo, CUDA versions, cpu_op, cuda_runtime,
 * kernel, gpu_memcpy, python_function, annotations, flows), and the real traces of
 * gpt2-block.py (kineto layout, and the autograd profiler's own export).
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-core.h"
#include "bpw-profile.h"

static char *
fixture (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "profiles", name, NULL);
}

static BpwProfile *
load (const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = fixture (name);
  BpwProfile *p = bpw_profile_load_file (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (p);
  return p;
}

static const char *
item_event_name (const BpwProfile *p, guint i)
{
  return bpw_profile_event_name (p, bpw_profile_event (p, bpw_profile_item (p, i)->event));
}

static void
assert_us (double seconds, double us)
{
  g_assert_cmpfloat (fabs (seconds * 1e6 - us), <, 1e-6);
}

static void
test_chrome_object (void)
{
  g_autoptr(BpwProfile) p = load ("chrome-events.json");
  const BpwProfileLane *lane;
  const BpwProfileItem *it;

  g_assert_cmpint (p->format, ==, BPW_PROFILE_FORMAT_CHROME);
  g_assert_cmpstr (p->meta.hardware, ==, "Example accelerator X1");
  g_assert_cmpstr (p->meta.framework, ==, "ExampleRT 2.0");
  g_assert_cmpstr (p->meta.date, ==, "2024-05-01T12:00:00Z");
  /* Five slices: layer0, the GEMM, the B/E softmax, the GeLU without dur, mystery_op. */
  g_assert_cmpuint (p->events->len, ==, 5);
  /* The instant, the counter and the event without a phase. */
  g_assert_cmpuint (p->ignored, ==, 3);
  g_assert_cmpuint (p->warnings->len, ==, 3);
  /* Lanes with slices only: (7, 3) and ("worker", "main"); (7, 4) held only an open "B". */
  g_assert_cmpuint (p->lanes->len, ==, 2);
  lane = &g_array_index (p->lanes, BpwProfileLane, 0);
  g_assert_cmpstr (bpw_profile_string (p, lane->process_name), ==, "trainer");
  g_assert_cmpstr (bpw_profile_string (p, lane->thread_name), ==, "compute");
  g_assert_cmpint (lane->pid, ==, 7);
  g_assert_cmpuint (p->devices->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (p->devices, 0), ==, "trainer (pid 7)");
  g_assert_cmpstr (g_ptr_array_index (p->devices, 1), ==, "worker");

  /* Origin at the earliest ts ("100.5" as a string); layer0 holds the GEMM. */
  assert_us (p->span_s, 104.5);
  g_assert_cmpuint (p->items->len, ==, 4);
  it = bpw_profile_item (p, 0);
  g_assert_cmpint (it->kind, ==, BPW_KERNEL_MATMUL);
  g_assert_cmpint (bpw_profile_event (p, it->event)->parent, >=, 0);
  assert_us (it->start, 0.5);
  assert_us (it->duration, 49.5);
  it = bpw_profile_item (p, 1);
  g_assert_cmpint (it->kind, ==, BPW_KERNEL_SOFTMAX);
  assert_us (it->duration, 9.25);
  g_assert_cmpint (bpw_profile_item (p, 2)->kind, ==, BPW_KERNEL_GELU);
  assert_us (bpw_profile_item (p, 2)->duration, 0);
  it = bpw_profile_item (p, 3);
  g_assert_cmpstr (item_event_name (p, 3), ==, "mystery_op");
  g_assert_cmpint (it->kind, ==, BPW_KERNEL_UNKNOWN);
  g_assert_cmpuint (it->device, ==, 1);
  assert_us (it->duration, 5);
}

static void
test_chrome_array (void)
{
  g_autoptr(BpwProfile) p = load ("chrome-array.json");
  const BpwProfileEvent *gemm;

  g_assert_cmpint (p->format, ==, BPW_PROFILE_FORMAT_CHROME);
  g_assert_cmpuint (p->events->len, ==, 3);
  g_assert_cmpuint (p->warnings->len, ==, 0);
  /* "step" (unrecognised, 60 µs) holds the GEMM (B/E inside B/E): only the GEMM and the
   * NCCL kernel are work. */
  g_assert_cmpuint (p->items->len, ==, 2);
  gemm = bpw_profile_event (p, bpw_profile_item (p, 0)->event);
  g_assert_cmpint (bpw_profile_item (p, 0)->kind, ==, BPW_KERNEL_MATMUL);
  g_assert_cmpint (gemm->parent, >=, 0);
  g_assert_cmpstr (bpw_profile_event_name (p, bpw_profile_event (p, gemm->parent)), ==, "step");
  assert_us (gemm->duration, 20);
  g_assert_cmpint (bpw_profile_item (p, 1)->kind, ==, BPW_KERNEL_COMMUNICATION);
  g_assert_cmpstr (p->meta.hardware, ==, NULL);
}

static void
test_kineto_gpu (void)
{
  g_autoptr(BpwProfile) p = load ("kineto-gpu.json");
  g_autofree char *meta = bpw_profile_meta_describe (&p->meta);
  const BpwProfileItem *linear;

  g_assert_cmpint (p->format, ==, BPW_PROFILE_FORMAT_PYTORCH);
  g_assert_cmpstr (p->meta.hardware, ==, "NVIDIA A100-SXM4-80GB (sm_80) ×2");
  g_assert_cmpstr (p->meta.driver, ==, "CUDA driver 12.2");
  g_assert_cmpstr (p->meta.runtime, ==, "CUDA runtime 12.1");
  /* baseTimeNanoseconds 1714564800 s after the epoch. */
  g_assert_cmpstr (p->meta.date, ==, "2024-05-01T12:00:00Z");
  g_assert_cmpstr (p->meta.backend, ==, "nccl");
  g_assert_cmpint (p->meta.rank, ==, 0);
  g_assert_cmpint (p->meta.world_size, ==, 2);
  g_assert_nonnull (strstr (meta, "nccl rank 0 of 2"));
  /* The two flows and the two instants carry no slice. */
  g_assert_cmpuint (p->ignored, ==, 4);

  /* Device work only: kernels grouped by the op that launched them. */
  g_assert_cmpuint (p->devices->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (p->devices, 0), ==, "GPU 0");
  g_assert_cmpuint (p->items->len, ==, 4);
  linear = bpw_profile_item (p, 0);
  g_assert_cmpstr (item_event_name (p, 0), ==, "aten::linear");
  g_assert_cmpint (linear->kind, ==, BPW_KERNEL_MATMUL);
  /* The GEMM (External id 3) and the split-K reduction, linked through its launch's
   * correlation id only: 120.5 + 9.5 µs of device time. */
  g_assert_cmpuint (linear->n_kernels, ==, 2);
  assert_us (linear->duration, 130);
  assert_us (linear->start, 40);
  /* aten::linear on [4, 128, 1024] × [3072, 1024]ᵀ: 512 × 1024 · 1024 × 3072. */
  g_assert_true (linear->has_shape);
  g_assert_cmpfloat (linear->batch, ==, 1);
  g_assert_cmpfloat (linear->m, ==, 512);
  g_assert_cmpfloat (linear->k, ==, 1024);
  g_assert_cmpfloat (linear->n, ==, 3072);
  g_assert_cmpstr (item_event_name (p, 1), ==, "aten::softmax");
  g_assert_cmpint (bpw_profile_item (p, 1)->kind, ==, BPW_KERNEL_SOFTMAX);
  /* No op has External id 99: the NCCL kernel is an item of its own. */
  g_assert_cmpint (bpw_profile_item (p, 2)->kind, ==, BPW_KERNEL_COMMUNICATION);
  g_assert_cmpint (bpw_profile_item (p, 3)->kind, ==, BPW_KERNEL_COPY);
  assert_us (bpw_profile_device_time (p, 0), 130 + 30 + 250 + 2);
}

/* The two files gpt2-block.py wrote in one run: the same events, with and without shapes. */
static void
test_pytorch_cpu (void)
{
  g_autoptr(BpwProfile) kineto = load ("gpt2-block.json");
  g_autoptr(BpwProfile) legacy = load ("gpt2-block-legacy.json");
  guint with_shape = 0, legacy_shape = 0, optimizer = 0;

  g_assert_cmpint (kineto->format, ==, BPW_PROFILE_FORMAT_PYTORCH);
  g_assert_cmpint (legacy->format, ==, BPW_PROFILE_FORMAT_PYTORCH_LEGACY);
  g_assert_nonnull (strstr (kineto->meta.framework, "PyTorch 1.13"));
  g_assert_nonnull (kineto->meta.hardware);
  g_assert_nonnull (kineto->meta.date);
  g_assert_cmpuint (kineto->events->len, ==, legacy->events->len);
  g_assert_cmpuint (kineto->items->len, ==, legacy->items->len);
  g_assert_cmpuint (kineto->devices->len, ==, 1);
  for (guint i = 0; i < kineto->items->len; i++)
    {
      const BpwProfileItem *a = bpw_profile_item (kineto, i);
      const BpwProfileItem *b = bpw_profile_item (legacy, i);

      g_assert_cmpstr (item_event_name (kineto, i), ==, item_event_name (legacy, i));
      g_assert_cmpfloat (fabs (a->duration - b->duration), <, 1e-12);
      g_assert_cmpint (a->kind, !=, BPW_KERNEL_UNKNOWN);
      with_shape += a->has_shape;
      legacy_shape += b->has_shape;
      optimizer += a->kind == BPW_KERNEL_OPTIMIZER;
    }
  /* Every matmul of the kineto layout has its shape; the legacy export records none. */
  g_assert_cmpuint (with_shape, >=, 36);
  g_assert_cmpuint (legacy_shape, ==, 0);
  /* Adam on 26 tensors, several element-wise ops each. */
  g_assert_cmpuint (optimizer, >=, 26 * 5);
}

typedef struct
{
  const char *text;
  const char *message;
} Broken;

static void
test_located_errors (void)
{
  static const Broken cases[] = {
    { "{\"traceEvents\": [\n  {\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 1},\n  42\n]}",
      "t.json:3:3: traceEvents[1]: expected an object (a trace event), got 42" },
    { "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": \"abc\", \"dur\": 1}]}",
      "t.json:1:36: traceEvents[0].ts: expected a number of µs, got \"abc\"" },
    { "[{\"ph\": \"X\", \"ts\": 5,\n  \"dur\": -4}]",
      "t.json:2:10: [0].dur: expected a non-negative number of µs, got -4" },
    { "[{\"ph\": 5, \"ts\": 1}]",
      "t.json:1:9: [0].ph: expected a phase string such as \"X\", got 5" },
    { "[{\"ph\": \"X\", \"dur\": 1}]",
      "t.json:1:2: [0]: missing required field 'ts' (µs)" },
    { "[{\"ph\": \"B\", \"ts\": 1, \"pid\": true}]",
      "t.json:1:30: [0].pid: expected an integer or a string, got true" },
    { "[{\"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"name\": [1]}]",
      "t.json:1:41: [0].name: expected a string, got an array" },
    { "[{\"ph\": \"X\", \"ts\": 1e18, \"dur\": 1}]",
      "t.json:1:20: [0].ts: expected a number of µs, got 1e+18" },
    { "\"a string\"",
      "t.json:1:1: expected a trace: an object with \"traceEvents\" or an array of events, got "
      "\"a string\"" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwProfile) p = bpw_profile_load_data ("t.json", cases[i].text, -1, &error);

      g_assert_null (p);
      g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }
}

/* Missing "traceEvents" and bad JSON are refused by the document layer, located. */
static void
test_document_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(BpwProfile) p = bpw_profile_load_data ("t.json", "{\"events\": []}", -1, &error);

  g_assert_null (p);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_true (g_str_has_prefix (error->message, "t.json:1:1: "));
  g_assert_nonnull (strstr (error->message, "traceEvents"));
  g_clear_error (&error);
  p = bpw_profile_load_data ("t.json", "[{\"ph\": \"X\", \"ts\": 1,", -1, &error);
  g_assert_null (p);
  g_assert_error (error, BPW_ERROR, BPW_ERROR_INVALID_INPUT);
  g_assert_true (g_str_has_prefix (error->message, "t.json:1:"));
}

/* Every prefix of a trace loads or is refused; none crashes (run under the sanitizers). */
static void
test_truncations (void)
{
  g_autofree char *path = fixture ("kineto-gpu.json");
  g_autofree char *text = NULL;
  gsize length;
  guint loaded = 0;

  g_assert_true (g_file_get_contents (path, &text, &length, NULL));
  for (gsize n = 0; n <= length; n += 7)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(BpwProfile) p = bpw_profile_load_data ("t.json", text, (gssize) n, &error);

      g_assert_true ((p == NULL) != (error == NULL));
      loaded += p != NULL;
    }
  g_assert_cmpuint (loaded, <=, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/bpw/core/Profile/chrome-object-variants", test_chrome_object);
  g_test_add_func ("/bpw/core/Profile/chrome-bare-array", test_chrome_array);
  g_test_add_func ("/bpw/core/Profile/kineto-gpu", test_kineto_gpu);
  g_test_add_func ("/bpw/core/Profile/pytorch-cpu-both-layouts", test_pytorch_cpu);
  g_test_add_func ("/bpw/core/Profile/located-errors", test_located_errors);
  g_test_add_func ("/bpw/core/Profile/document-errors", test_document_errors);
  g_test_add_func ("/bpw/core/Profile/truncations", test_truncations);
  return g_test_run ();
}
