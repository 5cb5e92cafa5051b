/* bpw-toast.h — toasts that libadwaita 1.2 cannot crash on
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libadwaita 1.2 frees a toast's bookkeeping when its hide animation ends but leaves the
 * show animation's "done" handler connected (fixed upstream only after 1.2). A toast whose
 * hide ends before its show then crashes the program on the next frame. Two ways lead
 * there: a toast dismissed in the frame it was shown (both animations last 300 ms, and
 * the hide's frame callback runs first), and a toast shown while another hides (its show
 * then lasts 500 ms) and dismissed within 200 ms.
 *
 * Every toast of the program goes through bpw_toast_show(), which keeps both away:
 * - it hands libadwaita one toast at a time, and the next only once the previous one's
 *   hide has finished, so no show ever runs beside a hide;
 * - a dismissal (the close button, Escape, the program) that arrives before the toast's
 *   show animation has finished is held back and carried out when it has.
 * Toasts still wait their turn as libadwaita's own queue would make them, in the order
 * given: a toast of high priority waits too, since it would hide the one on screen at
 * once. A dismissal held back makes the toast forget its overlay (its own handler has
 * run), so further dismissals of it do nothing until it goes.
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* Shows @toast (transfer full) on @overlay now, or after the toasts given before it.
 * Use it instead of adw_toast_overlay_add_toast(); giving the toast on screen again
 * restarts its timeout. */
void bpw_toast_show (AdwToastOverlay *overlay,
                     AdwToast        *toast);

G_END_DECLS
