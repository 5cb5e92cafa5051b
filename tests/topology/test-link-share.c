/* test-link-share.c — fair shares of a link: the closed forms of processor sharing
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Work is in seconds at the link's full rate (B bytes on a link of W B/s: B/W), so every
 * closed form below is in units of one transfer's time alone, T.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "bpw-link-share.h"

#define T 0.37  /* s: B/W of one transfer; not a round number, so rounding shows */

static void
assert_near (double a, double b)
{
  g_assert_cmpfloat (fabs (a - b), <=, 1e-12 * MAX (fabs (a), fabs (b)) + 1e-15);
}

static void
sweep_all (BpwLinkFlow *flows, guint n)
{
  double group_free[BPW_LINK_MAX_GROUPS] = { 0 };

  bpw_link_share_sweep (flows, n, 0.0, G_MAXDOUBLE, group_free);
  for (guint i = 0; i < n; i++)
    {
      g_assert_true (flows[i].done);
      g_assert_cmpfloat (flows[i].left, ==, 0.0);
    }
}

/* Two equal transfers of two groups starting together both end at 2T, not T and 2T. */
static void
test_two_together (void)
{
  BpwLinkFlow f[2] = { bpw_link_flow (0, T, 0), bpw_link_flow (0, T, 1) };

  sweep_all (f, 2);
  assert_near (f[0].end, 2 * T);
  assert_near (f[1].end, 2 * T);
  g_assert_true (f[0].shared && f[1].shared);
}

/* The second starts half way through the first: the first has T/2 left, served at half
 * rate it ends at T/2 + T = 3T/2; the second then has T/2 left alone: 2T. */
static void
test_half_way (void)
{
  BpwLinkFlow f[2] = { bpw_link_flow (0, T, 0), bpw_link_flow (T / 2, T, 1) };

  sweep_all (f, 2);
  assert_near (f[0].end, 1.5 * T);
  assert_near (f[1].end, 2 * T);
  assert_near (f[1].start, T / 2);
}

/* n equal transfers starting together all end at nT. */
static void
test_n_equal (void)
{
  for (guint n = 1; n <= BPW_LINK_MAX_GROUPS; n++)
    {
      BpwLinkFlow f[BPW_LINK_MAX_GROUPS];

      for (guint i = 0; i < n; i++)
        f[i] = bpw_link_flow (0, T, i);
      sweep_all (f, n);
      for (guint i = 0; i < n; i++)
        assert_near (f[i].end, n * T);
    }
}

/* Unequal work starting together, w1 ≤ … ≤ wn: the k-th ends at Σ_{j<k} w_j + (n−k+1)·w_k,
 * and the link is busy for exactly Σ w (the bytes are conserved: sharing adds time to
 * each, none to the link). */
static void
test_unequal_and_conserved (void)
{
  const double w[] = { 0.1, 0.25, 0.7, 1.3 };
  BpwLinkFlow f[G_N_ELEMENTS (w)];
  double before = 0, total = 0;

  for (guint i = 0; i < G_N_ELEMENTS (w); i++)
    f[i] = bpw_link_flow (0, w[i], G_N_ELEMENTS (w) - 1 - i);
  sweep_all (f, G_N_ELEMENTS (w));
  for (guint k = 0; k < G_N_ELEMENTS (w); k++)
    {
      assert_near (f[k].end, before + (double) (G_N_ELEMENTS (w) - k) * w[k]);
      before += w[k];
      total += w[k];
    }
  assert_near (f[G_N_ELEMENTS (w) - 1].end, total);
}

/* A transfer alone, or several that never overlap, end at start + work bit for bit (the
 * arithmetic an unshared link had). */
static void
test_alone_exact (void)
{
  BpwLinkFlow f[3] = {
    bpw_link_flow (0.1, 0.2, 0), bpw_link_flow (0.7, 0.3, 1), bpw_link_flow (1.1, 1e-9, 2),
  };

  sweep_all (f, 3);
  for (guint i = 0; i < 3; i++)
    {
      g_assert_false (f[i].shared);
      g_assert_cmpfloat (f[i].start, ==, f[i].ready);
      g_assert_cmpfloat (f[i].end, ==, f[i].ready + f[i].work);
      g_assert_cmpint (f[i].behind, ==, BPW_LINK_READY);
    }
}

/* One group's transfers run in order and do not share with each other: T and 2T, the
 * second started by the first. */
static void
test_group_in_order (void)
{
  BpwLinkFlow f[2] = { bpw_link_flow (0, T, 3), bpw_link_flow (0, T, 3) };

  sweep_all (f, 2);
  g_assert_cmpfloat (f[0].end, ==, T);
  g_assert_cmpfloat (f[1].start, ==, T);
  g_assert_cmpfloat (f[1].end, ==, 2 * T);
  g_assert_cmpint (f[1].behind, ==, 0);
  g_assert_false (f[0].shared || f[1].shared);
}

/* Stopping at an instant and going on gives the ends of one sweep: the simulator serves a
 * link up to each arrival. */
static void
test_in_steps (void)
{
  BpwLinkFlow whole[3] = {
    bpw_link_flow (0, 3 * T, 0), bpw_link_flow (T, T, 1), bpw_link_flow (1.5 * T, 2 * T, 2),
  };
  BpwLinkFlow steps[3];
  double group_free[BPW_LINK_MAX_GROUPS] = { 0 }, t = 0;

  memcpy (steps, whole, sizeof whole);
  sweep_all (whole, 3);
  for (guint k = 1; k <= 7; k++)
    t = bpw_link_share_sweep (steps, 3, t, k * 0.4 * T, group_free);
  bpw_link_share_sweep (steps, 3, t, G_MAXDOUBLE, group_free);
  for (guint i = 0; i < 3; i++)
    assert_near (steps[i].end, whole[i].end);
  /* The closed form: 0..T the first alone (2T left); T..1.5T two (1.75T and 0.75T left);
   * three until the second's 0.75T is served, 1.5T + 3·0.75T = 3.75T (1T and 1.25T
   * left); two until the first's 1T, 3.75T + 2T = 5.75T; the third's last 0.25T alone,
   * 6T: the sum of the work, the link never idle. */
  assert_near (whole[0].end, 5.75 * T);
  assert_near (whole[1].end, 3.75 * T);
  assert_near (whole[2].end, 6 * T);
}

/* A floor holds the end (a synchronised all-reduce) and the group's next transfer behind
 * it, without taking bandwidth from the others. */
static void
test_floor (void)
{
  BpwLinkFlow f[3] = { bpw_link_flow (0, T, 0), bpw_link_flow (0, T, 0), bpw_link_flow (0, T, 1) };

  f[0].floor = 5 * T;
  sweep_all (f, 3);
  assert_near (f[0].end, 5 * T);
  assert_near (f[2].end, 2 * T);  /* shared with the first's work only */
  assert_near (f[1].start, 5 * T);
  assert_near (f[1].end, 6 * T);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/link-share/two-together", test_two_together);
  g_test_add_func ("/link-share/half-way", test_half_way);
  g_test_add_func ("/link-share/n-equal", test_n_equal);
  g_test_add_func ("/link-share/unequal-conserved", test_unequal_and_conserved);
  g_test_add_func ("/link-share/alone-exact", test_alone_exact);
  g_test_add_func ("/link-share/group-in-order", test_group_in_order);
  g_test_add_func ("/link-share/in-steps", test_in_steps);
  g_test_add_func ("/link-share/floor", test_floor);
  return g_test_run ();
}
