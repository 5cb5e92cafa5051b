/* bpw-validation-item.c — one row of a Validation page table
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-validation-item"

#include "config.h"

#include <math.h>

#include "bpw-validation-item.h"

struct _BpwValidationItem
{
  GObject  parent_instance;

  /* owned */
  char    *texts[BPW_VALIDATION_N_TEXTS];
  double   values[BPW_VALIDATION_N_VALUES];
};

G_DEFINE_FINAL_TYPE (BpwValidationItem, bpw_validation_item, G_TYPE_OBJECT)

static void
bpw_validation_item_finalize (GObject *object)
{
  BpwValidationItem *self = BPW_VALIDATION_ITEM (object);

  for (guint i = 0; i < BPW_VALIDATION_N_TEXTS; i++)
    g_clear_pointer (&self->texts[i], g_free);

  G_OBJECT_CLASS (bpw_validation_item_parent_class)->finalize (object);
}

static void
bpw_validation_item_class_init (BpwValidationItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = bpw_validation_item_finalize;
}

static void
bpw_validation_item_init (BpwValidationItem *self)
{
  for (guint i = 0; i < BPW_VALIDATION_N_VALUES; i++)
    self->values[i] = NAN;
}

BpwValidationItem *
bpw_validation_item_new (const char *name)
{
  BpwValidationItem *self = g_object_new (BPW_TYPE_VALIDATION_ITEM, NULL);

  self->texts[BPW_VALIDATION_TEXT_NAME] = g_strdup (name);
  return self;
}

const char *
bpw_validation_item_get_text (BpwValidationItem *self,
                              BpwValidationText  text)
{
  g_return_val_if_fail (BPW_IS_VALIDATION_ITEM (self), NULL);
  g_return_val_if_fail ((guint) text < BPW_VALIDATION_N_TEXTS, NULL);

  return self->texts[text];
}

void
bpw_validation_item_set_text (BpwValidationItem *self,
                              BpwValidationText  text,
                              const char        *value)
{
  g_return_if_fail (BPW_IS_VALIDATION_ITEM (self));
  g_return_if_fail ((guint) text < BPW_VALIDATION_N_TEXTS);

  g_free (self->texts[text]);
  self->texts[text] = g_strdup (value);
}

double
bpw_validation_item_get_value (BpwValidationItem  *self,
                               BpwValidationValue  value)
{
  g_return_val_if_fail (BPW_IS_VALIDATION_ITEM (self), NAN);
  g_return_val_if_fail ((guint) value < BPW_VALIDATION_N_VALUES, NAN);

  return self->values[value];
}

void
bpw_validation_item_set_value (BpwValidationItem  *self,
                               BpwValidationValue  value,
                               double              number)
{
  g_return_if_fail (BPW_IS_VALIDATION_ITEM (self));
  g_return_if_fail ((guint) value < BPW_VALIDATION_N_VALUES);

  self->values[value] = number;
}
