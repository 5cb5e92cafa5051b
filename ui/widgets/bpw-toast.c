/* bpw-toast.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-toast"

#include "config.h"

#include "bpw-toast.h"

/* The longest show animation libadwaita 1.2 plays (a toast replacing a hiding one); ours
 * are never shown beside a hiding one and take 300 ms, so this bound is generous. */
#define BPW_TOAST_SHOW_MS 500

#define BPW_TOAST_STATE_KEY "bpw-toast-state"

/* What one overlay is showing and what waits; kept in the overlay's data. */
typedef struct
{
  AdwToastOverlay *overlay;       /* unowned: the state lives as long as it */
  AdwToast        *current;       /* owned: handed to libadwaita and not yet dismissed */
  gulong           hold_id;       /* on current, runs before libadwaita's handler */
  gulong           dismissed_id;  /* on current, runs after it */
  gint64           show_end_ms;   /* frame time by which current's show animation ended */
  gboolean         shown;         /* current's show animation has ended */
  gboolean         dismiss_held;  /* current was dismissed early: dismiss it once shown */
  GQueue           pending;       /* owned AdwToast, in the order given */
  guint            tick_id;
  guint            idle_id;
  gboolean         destroyed;
} BpwToastState;

static void bpw_toast_state_update (BpwToastState *state);

/* The toast widgets libadwaita still holds, shown or hiding: every child but the content. */
static gboolean
bpw_toast_overlay_holds_toast (AdwToastOverlay *overlay)
{
  GtkWidget *content = adw_toast_overlay_get_child (overlay);

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (overlay));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (child != content)
      return TRUE;
  return FALSE;
}

/* libadwaita plays no animation on an unmapped overlay or with animations off: the show
 * ends inside adw_toast_overlay_add_toast(). */
static gboolean
bpw_toast_overlay_animates (AdwToastOverlay *overlay)
{
  gboolean enabled = TRUE;

  if (!gtk_widget_get_mapped (GTK_WIDGET (overlay))
      || gtk_widget_get_frame_clock (GTK_WIDGET (overlay)) == NULL)
    return FALSE;
  g_object_get (gtk_widget_get_settings (GTK_WIDGET (overlay)),
                "gtk-enable-animations", &enabled, NULL);
  return enabled;
}

static void
bpw_toast_state_forget_current (BpwToastState *state)
{
  if (state->current == NULL)
    return;
  g_clear_signal_handler (&state->hold_id, state->current);
  g_clear_signal_handler (&state->dismissed_id, state->current);
  g_clear_object (&state->current);
  state->shown = FALSE;
  state->dismiss_held = FALSE;
}

/* A dismissal (close button, Escape, timeout, the program) before the show animation has
 * ended would let the hide end first: it waits, and is carried out once the show ends.
 * The toast's own "dismissed" handler, connected at its construction, has already run and
 * cleared its overlay; further dismissals of it are no-ops until then. */
static void
bpw_toast_hold_cb (AdwToast      *toast,
                   BpwToastState *state)
{
  if (state->destroyed || toast != state->current || state->shown)
    return;
  state->dismiss_held = TRUE;
  g_signal_stop_emission_by_name (toast, "dismissed");
  bpw_toast_state_update (state);
}

static gboolean
bpw_toast_idle_cb (gpointer data)
{
  BpwToastState *state = data;

  state->idle_id = 0;
  bpw_toast_state_update (state);
  return G_SOURCE_REMOVE;
}

static void
bpw_toast_state_queue_update (BpwToastState *state)
{
  if (state->idle_id == 0 && !state->destroyed)
    state->idle_id = g_idle_add (bpw_toast_idle_cb, state);
}

/* libadwaita has started hiding the toast. The next one waits for an idle: this may be
 * the overlay's dispose dismissing it, and "destroy" then cancels the idle. */
static void
bpw_toast_dismissed_cb (AdwToast      *toast,
                        BpwToastState *state)
{
  if (toast != state->current)
    return;
  bpw_toast_state_forget_current (state);
  bpw_toast_state_queue_update (state);
}

static void
bpw_toast_state_hand_over (BpwToastState *state,
                           AdwToast      *toast)
{
  state->current = toast;
  state->shown = FALSE;
  state->dismiss_held = FALSE;
  /* Connected before the overlay connects its own handler, so that it can hold it back. */
  state->hold_id = g_signal_connect (toast, "dismissed", G_CALLBACK (bpw_toast_hold_cb), state);
  adw_toast_overlay_add_toast (state->overlay, g_object_ref (toast));
  state->dismissed_id = g_signal_connect_after (toast, "dismissed",
                                                G_CALLBACK (bpw_toast_dismissed_cb), state);
  if (!bpw_toast_overlay_animates (state->overlay))
    state->shown = TRUE;
  else
    {
      /* The animation took its start from this same frame clock, just now. */
      GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (state->overlay));

      state->show_end_ms = gdk_frame_clock_get_frame_time (clock) / 1000 + BPW_TOAST_SHOW_MS;
    }
}

/* One step towards the next toast. Returns whether it needs to look again on a later
 * frame: a show or a hide is still playing. */
static gboolean
bpw_toast_state_step (BpwToastState *state)
{
  if (state->destroyed)
    return FALSE;

  if (state->current != NULL)
    {
      if (!state->shown)
        return TRUE;
      if (state->dismiss_held)
        {
          /* The held emission already ran the toast's own handler, which forgets the
           * overlay: adw_toast_dismiss() would now return early. The overlay's handler
           * never ran; the signal reaches it. */
          state->dismiss_held = FALSE;
          g_signal_emit_by_name (state->current, "dismissed");
        }
      return FALSE;
    }

  if (g_queue_is_empty (&state->pending))
    return FALSE;
  /* A hide still playing would make the next show last longer than a quick dismissal's
   * hide; the next toast waits until the previous one is gone. */
  if (bpw_toast_overlay_holds_toast (state->overlay))
    return TRUE;
  bpw_toast_state_hand_over (state, g_queue_pop_head (&state->pending));
  return !state->shown;
}

/* Seen in a frame at or after the show's end, the show animation's own frame callback
 * has ended it in this frame: a hide started now ends at least 300 ms later. */
static gboolean
bpw_toast_tick_cb (GtkWidget     *widget,
                   GdkFrameClock *clock,
                   gpointer       data)
{
  BpwToastState *state = data;

  if (state->current != NULL && !state->shown
      && gdk_frame_clock_get_frame_time (clock) / 1000 >= state->show_end_ms)
    state->shown = TRUE;
  if (bpw_toast_state_step (state))
    return G_SOURCE_CONTINUE;
  state->tick_id = 0;
  return G_SOURCE_REMOVE;
}

static void
bpw_toast_state_update (BpwToastState *state)
{
  if (bpw_toast_state_step (state))
    {
      if (state->tick_id == 0)
        state->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (state->overlay),
                                                       bpw_toast_tick_cb, state, NULL);
    }
  else if (state->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (state->overlay), state->tick_id);
      state->tick_id = 0;
    }
}

/* Unmapping ends every animation at once, show and hide. A held dismissal and the next
 * toast wait for an idle, since the animations' own "unmap" handlers may not have run yet,
 * and frames, which would look again, stop. */
static void
bpw_toast_unmap_cb (BpwToastState *state)
{
  if (state->current != NULL)
    state->shown = TRUE;
  if (state->current != NULL || !g_queue_is_empty (&state->pending))
    bpw_toast_state_queue_update (state);
}

/* The overlay goes away: drop what we hold, dismiss nothing (libadwaita's dispose has
 * just dismissed its own toasts), and never call back. */
static void
bpw_toast_destroy_cb (BpwToastState *state)
{
  state->destroyed = TRUE;
  g_clear_handle_id (&state->idle_id, g_source_remove);
  if (state->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (state->overlay), state->tick_id);
      state->tick_id = 0;
    }
  bpw_toast_state_forget_current (state);
  g_queue_clear_full (&state->pending, g_object_unref);
}

static void
bpw_toast_state_free (gpointer data)
{
  BpwToastState *state = data;

  /* "destroy" has run (a widget is always destroyed before it is finalized). */
  g_warn_if_fail (state->destroyed);
  g_free (state);
}

static BpwToastState *
bpw_toast_state_get (AdwToastOverlay *overlay)
{
  BpwToastState *state = g_object_get_data (G_OBJECT (overlay), BPW_TOAST_STATE_KEY);

  if (state != NULL)
    return state;
  state = g_new0 (BpwToastState, 1);
  state->overlay = overlay;
  g_queue_init (&state->pending);
  g_signal_connect_swapped (overlay, "unmap", G_CALLBACK (bpw_toast_unmap_cb), state);
  g_signal_connect_swapped (overlay, "destroy", G_CALLBACK (bpw_toast_destroy_cb), state);
  g_object_set_data_full (G_OBJECT (overlay), BPW_TOAST_STATE_KEY, state, bpw_toast_state_free);
  return state;
}

void
bpw_toast_show (AdwToastOverlay *overlay,
                AdwToast        *toast)
{
  BpwToastState *state;

  g_return_if_fail (ADW_IS_TOAST_OVERLAY (overlay));
  g_return_if_fail (ADW_IS_TOAST (toast));

  state = bpw_toast_state_get (overlay);
  if (state->destroyed)
    {
      g_object_unref (toast);
      return;
    }
  if (toast == state->current)
    {
      /* libadwaita restarts the timeout of the toast it shows, and drops this reference.
       * A toast whose dismissal is held no longer knows its overlay (see above), and
       * would be taken for a new one: it goes as it was asked to. */
      if (state->dismiss_held)
        g_object_unref (toast);
      else
        adw_toast_overlay_add_toast (overlay, toast);
      return;
    }
  if (g_queue_find (&state->pending, toast) != NULL)
    {
      g_object_unref (toast);
      return;
    }
  g_queue_push_tail (&state->pending, toast);
  bpw_toast_state_update (state);
}
