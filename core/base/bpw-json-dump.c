/* bpw-json-dump.c — JSON text from a JsonNode tree, through the house's writer
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bpw-json-dump"

#include "config.h"

#include "bpw-json-dump-private.h"

#include "bpw-json-writer.h"

char *
_bpw_json_dump (JsonNode *node)
{
  BpwJsonWriter w;

  g_return_val_if_fail (node != NULL, NULL);

  bpw_json_writer_init (&w, TRUE);
  bpw_json_writer_node (&w, NULL, node);
  return bpw_json_writer_finish (&w);
}
