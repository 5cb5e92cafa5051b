/* bpw-memo-page.h — flowing text, tables and figures onto the pages of a PDF
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The few typesetting steps the memo needs, on any cairo surface with pages: a cursor
 * that moves down the page, headings (level 1 also a PDF outline entry), wrapped
 * paragraphs, tables that break across pages with their header repeated, and figures —
 * any BpwPlot laid out at the text width with the print style, drawn through its one
 * draw path — with captions. Every page gets the same footer and its number.
 */
#pragma once

#include <cairo.h>

#include "bpw-plot.h"
#include "bpw-plot-text.h"
#include "bpw-si-format.h"

G_BEGIN_DECLS

typedef struct
{
  cairo_surface_t *surface;      /* borrowed: a PDF surface */
  cairo_t         *cr;           /* owned */
  BpwPlotStyle     style;        /* text */
  BpwPlotStyle     figure_style; /* charts: the print style */
  BpwPlotText      text;
  double           width, height, margin;
  double           y;            /* cursor: the top of what comes next */
  guint            page;         /* 1-based, 0 before the first */
  char             footer[256];
  gint             outline;      /* the current section's outline id */
} BpwMemoPage;

typedef enum
{
  BPW_MEMO_LEFT,
  BPW_MEMO_RIGHT,
} BpwMemoAlign;

void      bpw_memo_page_begin     (BpwMemoPage        *page,
                                   cairo_surface_t    *surface,
                                   double              width,
                                   double              height,
                                   const char         *footer);
/* Finishes the last page; the surface is left to the caller. */
void      bpw_memo_page_end       (BpwMemoPage        *page);
void      bpw_memo_page_new       (BpwMemoPage        *page);
/* Starts a new page unless @height is left on this one (a heading and its figure). */
void      bpw_memo_page_need      (BpwMemoPage        *page,
                                   double              height);
/* Height left above the footer. */
double    bpw_memo_page_room      (BpwMemoPage        *page);
/* Level 0: the document title; 1: a section (an outline entry; starts a page when less
 * than a quarter of it is left); 2: a subsection. */
void      bpw_memo_page_heading   (BpwMemoPage        *page,
                                   guint               level,
                                   const char         *text);
void      bpw_memo_page_paragraph (BpwMemoPage        *page,
                                   BpwPlotFont         font,
                                   const BpwPlotColor *color,
                                   const char         *text);
/* @cells: n_rows × n_columns strings, the first row the header; the last column wraps
 * when the table is wider than the text. */
void      bpw_memo_page_table     (BpwMemoPage        *page,
                                   const char * const *cells,
                                   guint               n_rows,
                                   guint               n_columns,
                                   const BpwMemoAlign *align);
/* Lays @plot out at the text width × @height with the print style (and @viewport,
 * nullable), draws it, and sets @caption under it. */
void      bpw_memo_page_figure    (BpwMemoPage        *page,
                                   BpwPlot            *plot,
                                   const BpwPlotViewport *viewport,
                                   double              height,
                                   const char         *caption);

G_END_DECLS
