/* test-toast.c — toasts through bpw_toast_show() survive libadwaita 1.2's toast crash
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libadwaita 1.2 crashes when a toast's hide animation ends before its show animation:
 * a toast dismissed in the frame it was shown, or one shown while another hides and
 * dismissed soon after. Each test here plays such a sequence through bpw_toast_show();
 * handed to adw_toast_overlay_add_toast() directly, the same sequences crash in
 * show_done_cb() on a freed toast. The tests also check what the helper promises: one
 * toast widget on the overlay at a time, every toast shown in order and dismissed once,
 * and nothing kept once the overlay is gone.
 */
#include "config.h"

#include "bpw-ui-test-util.h"
#include "bpw-toast.h"

typedef struct
{
  GtkWindow       *window;
  AdwToastOverlay *overlay;
  guint            most_toast_widgets;  /* seen on any frame */
} Fixture;

static guint
count_toast_widgets (AdwToastOverlay *overlay)
{
  GtkWidget *content = adw_toast_overlay_get_child (overlay);
  guint n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (overlay));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (child != content)
      n++;
  return n;
}

static gboolean
shows_label (GtkWidget  *widget,
             const char *text)
{
  if (GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_label (GTK_LABEL (widget)), text) == 0)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (shows_label (child, text))
      return TRUE;
  return FALSE;
}

/* Counts every frame, and keeps frames coming while a test waits. */
static gboolean
monitor_tick_cb (GtkWidget     *widget,
                 GdkFrameClock *clock,
                 gpointer       data)
{
  Fixture *fixture = data;

  fixture->most_toast_widgets = MAX (fixture->most_toast_widgets,
                                     count_toast_widgets (fixture->overlay));
  return G_SOURCE_CONTINUE;
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", TRUE, NULL);
  fixture->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (fixture->window, 600, 400);
  fixture->overlay = ADW_TOAST_OVERLAY (adw_toast_overlay_new ());
  adw_toast_overlay_set_child (fixture->overlay, gtk_label_new ("content"));
  gtk_window_set_child (fixture->window, GTK_WIDGET (fixture->overlay));
  gtk_window_present (fixture->window);
  bpw_test_wait_for_frame (GTK_WIDGET (fixture->overlay));
  gtk_widget_add_tick_callback (GTK_WIDGET (fixture->overlay), monitor_tick_cb, fixture, NULL);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  if (fixture->window != NULL)
    gtk_window_destroy (fixture->window);
}

typedef struct
{
  Fixture    *fixture;
  const char *title;
  gint64      until_us;
} Wait;

static gboolean
toast_not_on_screen (gpointer data)
{
  Wait *wait = data;

  return !shows_label (GTK_WIDGET (wait->fixture->overlay), wait->title);
}

static gboolean
toasts_on_screen (gpointer data)
{
  Wait *wait = data;

  return count_toast_widgets (wait->fixture->overlay) > 0;
}

static gboolean
frame_time_before (gpointer data)
{
  Wait *wait = data;
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (wait->fixture->overlay));

  return gdk_frame_clock_get_frame_time (clock) < wait->until_us;
}

static void
wait_for_toast (Fixture    *fixture,
                const char *title)
{
  Wait wait = { fixture, title, 0 };

  bpw_test_wait (toast_not_on_screen, &wait);
}

/* Lets @ms milliseconds of frames go by, as the animations count them. */
static void
wait_frames (Fixture *fixture,
             guint    ms)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (fixture->overlay));
  Wait wait = { fixture, NULL, gdk_frame_clock_get_frame_time (clock) + ms * G_GINT64_CONSTANT (1000) };

  bpw_test_wait (frame_time_before, &wait);
}

static void
wait_until_no_toast (Fixture *fixture)
{
  Wait wait = { fixture, NULL, 0 };

  bpw_test_wait (toasts_on_screen, &wait);
  /* One more frame: a crash from a show animation outliving its toast comes there. */
  wait_frames (fixture, 50);
}

static void
count_dismissal_cb (AdwToast *toast,
                    guint    *count)
{
  (*count)++;
}

/* A toast of the test's: the test keeps a reference to dismiss it, counts the
 * dismissals that got through, and watches for its end. */
static AdwToast *
give_toast (Fixture    *fixture,
            const char *title,
            guint      *dismissals)
{
  AdwToast *toast = adw_toast_new (title);

  adw_toast_set_timeout (toast, 0);  /* only dismissals end it */
  g_signal_connect_after (toast, "dismissed", G_CALLBACK (count_dismissal_cb), dismissals);
  bpw_toast_show (fixture->overlay, g_object_ref (toast));
  return toast;
}

/* Trigger one: dismissed in the same frame as shown, as a close button or Escape pressed
 * before the next frame would. The dismissal waits until the show has ended. */
static void
test_toast_dismissed_in_first_frame (Fixture       *fixture,
                                     gconstpointer  data)
{
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *title = g_strdup_printf ("toast %u", i);
      guint dismissals = 0;
      AdwToast *toast = give_toast (fixture, title, &dismissals);

      g_object_add_weak_pointer (G_OBJECT (toast), (gpointer *) &toast);
      g_assert_true (shows_label (GTK_WIDGET (fixture->overlay), title));
      adw_toast_dismiss (toast);
      g_assert_cmpuint (dismissals, ==, 0);  /* held until the show has ended */
      g_assert_true (shows_label (GTK_WIDGET (fixture->overlay), title));
      g_object_unref (toast);
      wait_until_no_toast (fixture);
      g_assert_cmpuint (dismissals, ==, 1);
      g_assert_null (toast);  /* nobody keeps it */
    }
  g_assert_cmpuint (fixture->most_toast_widgets, ==, 1);
}

/* Trigger two: a toast given while another shows, the first dismissed (the second would
 * then show for 500 ms beside the first one's 300 ms hide), the second dismissed 100 ms
 * after it appeared. The second appears only once the first is gone. */
static void
test_toast_shown_while_another_hides (Fixture       *fixture,
                                      gconstpointer  data)
{
  guint first_dismissals = 0;
  guint second_dismissals = 0;
  g_autoptr(AdwToast) first = give_toast (fixture, "first", &first_dismissals);
  g_autoptr(AdwToast) second = give_toast (fixture, "second", &second_dismissals);

  g_assert_true (shows_label (GTK_WIDGET (fixture->overlay), "first"));
  g_assert_false (shows_label (GTK_WIDGET (fixture->overlay), "second"));
  wait_frames (fixture, 400);  /* the first one's show has ended */
  g_assert_false (shows_label (GTK_WIDGET (fixture->overlay), "second"));
  adw_toast_dismiss (first);
  wait_for_toast (fixture, "second");
  g_assert_cmpuint (first_dismissals, ==, 1);
  wait_frames (fixture, 100);
  adw_toast_dismiss (second);
  wait_until_no_toast (fixture);
  g_assert_cmpuint (second_dismissals, ==, 1);
  g_assert_cmpuint (fixture->most_toast_widgets, ==, 1);
}

/* Many toasts at once, each dismissed the moment it appears: they come one after the
 * other, in order, each dismissed once, and none is kept afterwards. */
static void
test_toast_burst (Fixture       *fixture,
                  gconstpointer  data)
{
  enum { N_TOASTS = 6 };
  AdwToast *toasts[N_TOASTS];
  guint dismissals[N_TOASTS] = { 0 };
  char titles[N_TOASTS][16];

  for (guint i = 0; i < N_TOASTS; i++)
    {
      g_snprintf (titles[i], sizeof titles[i], "burst %u", i);
      toasts[i] = give_toast (fixture, titles[i], &dismissals[i]);
    }
  for (guint i = 0; i < N_TOASTS; i++)
    {
      wait_for_toast (fixture, titles[i]);
      for (guint later = i + 1; later < N_TOASTS; later++)
        g_assert_cmpuint (dismissals[later], ==, 0);
      adw_toast_dismiss (toasts[i]);
      /* Given again while on screen: it stays, as libadwaita would keep it. */
      bpw_toast_show (fixture->overlay, g_object_ref (toasts[i]));
    }
  wait_until_no_toast (fixture);
  for (guint i = 0; i < N_TOASTS; i++)
    {
      g_assert_cmpuint (dismissals[i], ==, 1);
      g_object_add_weak_pointer (G_OBJECT (toasts[i]), (gpointer *) &toasts[i]);
      g_object_unref (toasts[i]);
      g_assert_null (toasts[i]);
    }
  g_assert_cmpuint (fixture->most_toast_widgets, ==, 1);
}

/* The overlay goes while a dismissal is held back and toasts wait: nothing is dismissed
 * late, nothing crashes, and the toasts are let go. */
static void
test_toast_overlay_destroyed (Fixture       *fixture,
                              gconstpointer  data)
{
  guint dismissals[3] = { 0 };
  AdwToast *shown = give_toast (fixture, "shown", &dismissals[0]);
  AdwToast *waiting = give_toast (fixture, "waiting", &dismissals[1]);
  AdwToast *last = give_toast (fixture, "last", &dismissals[2]);
  GMainContext *context = g_main_context_default ();

  g_object_add_weak_pointer (G_OBJECT (shown), (gpointer *) &shown);
  g_object_add_weak_pointer (G_OBJECT (waiting), (gpointer *) &waiting);
  g_object_add_weak_pointer (G_OBJECT (last), (gpointer *) &last);
  adw_toast_dismiss (shown);  /* held: its show has just begun */
  g_object_unref (shown);
  g_object_unref (waiting);
  g_object_unref (last);

  gtk_window_destroy (g_steal_pointer (&fixture->window));
  while (g_main_context_pending (context))
    g_main_context_iteration (context, FALSE);

  g_assert_null (shown);
  g_assert_null (waiting);
  g_assert_null (last);
  g_assert_cmpuint (dismissals[1], ==, 0);
  g_assert_cmpuint (dismissals[2], ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *scratch = NULL;
  int exit_code = 0;
  int result;

  if (!bpw_test_init_gui (&argc, &argv, &scratch, &exit_code))
    return exit_code;

  g_test_add ("/bpw/ui/Toast/dismissed-in-first-frame", Fixture, NULL, fixture_set_up,
              test_toast_dismissed_in_first_frame, fixture_tear_down);
  g_test_add ("/bpw/ui/Toast/shown-while-another-hides", Fixture, NULL, fixture_set_up,
              test_toast_shown_while_another_hides, fixture_tear_down);
  g_test_add ("/bpw/ui/Toast/burst", Fixture, NULL, fixture_set_up,
              test_toast_burst, fixture_tear_down);
  g_test_add ("/bpw/ui/Toast/overlay-destroyed", Fixture, NULL, fixture_set_up,
              test_toast_overlay_destroyed, fixture_tear_down);

  result = g_test_run ();
  bpw_test_remove_tree (scratch);
  return result;
}
