#!/usr/bin/env python3
# test-marked-strings.py — every user-visible message literal is marked for translation.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A German user should never meet an English error, chart title or memo heading because a
# literal went in without _(). This reads the C sources of core/, ui/ and app/ and, for
# each call of a function whose argument is shown to the user (the GError setters, the
# core's located-error and plan-reason helpers, the chart and memo text helpers, cairo and
# pango text), fails when that argument holds a string literal with words in it that is
# not inside _(), N_(), C_() or NC_(). Literals without letters ("%s: %s") need no
# translation. ALLOWED lists the few deliberate exceptions, each with its reason.
#
# With --self-test it first checks that it catches an unmarked literal and accepts the
# marked forms, so the scan cannot silently match nothing.

import os
import re
import sys

# function name -> index of the user-visible argument (0-based)
MESSAGE_ARGS = {
    # GLib
    'g_set_error': 3,
    'g_set_error_literal': 3,
    'g_prefix_error': 1,
    'g_propagate_prefixed_error': 2,
    # core helpers that build GErrors, warnings and plan reasons
    'bpw_json_doc_error': 4,
    'bpw_json_parser_fail_at': 3,
    'bpw_json_parser_expected': 1,
    'member_error': 5,
    'type_error': 4,
    'fail_got': 3,
    'bpw_calculon_check_fail': 2,
    'bpw_calculon_merge_fail': 2,
    'bpw_calculon_system_fail': 2,
    'bpw_blueprint_invalid': 2,
    'bpw_study_measurement_warn': 4,
    '_bpw_plan_reason': 1,
    '_bpw_blueprint_read_number_element': 3,
    'FAIL': 0,
    'FAIL_INPUT': 0,
    'MEMBER_ERROR': 1,
    # charts and memo
    'bpw_plot_legend_add': 3,
    'bpw_axis_layout_init': 2,
    'bpw_memo_page_heading': 2,
    'bpw_memo_page_paragraph': 3,
    'bpw_memo_page_figure': 4,
    'bpw_memo_page_begin': 4,
    'cairo_show_text': 1,
    'pango_layout_set_text': 1,
    'pango_layout_set_markup': 1,
}

# (file, literal text) pairs that stay as they are on purpose.
ALLOWED = {
    # A cancellation: the job queue's callers drop G_IO_ERROR_CANCELLED, never show it.
    ('ui/jobs/bpw-job-queue.c', '"A newer job replaced this one."'),
    ('ui/jobs/bpw-study-worker.c', '"The study changed while it was worked on."'),
}

# The command line's own words are English (its usage and option errors, also those of
# its MPI runner); what it prints from the core and the charts is translated.
SKIP_FILES = re.compile(r'^app/bpw-(?:cli|mpi)[^/]*\.c$')

TOKEN = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'', re.S)
CONVERSION = re.compile(r'%(?:\d+\$)?[-+ #0-9.*]*(?:hh|h|ll|l|z|j|t)?[a-zA-Z]')
MARKER = re.compile(r'(?<![A-Za-z0-9_])(?:N?C?_|g_dgettext|g_dpgettext2?|gettext|dgettext)\s*\($')


def call_args(text, open_paren):
    """Spans of the top-level arguments of the call whose '(' is at open_paren."""
    depth, start, i, spans = 0, open_paren + 1, open_paren, []
    while i < len(text):
        m = TOKEN.match(text, i)
        if m:
            i = m.end()
            continue
        c = text[i]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
            if depth == 0:
                spans.append((start, i))
                return spans
        elif c == ',' and depth == 1:
            spans.append((start, i))
            start = i + 1
        i += 1
    return spans


def unmarked_literals(text, start, end):
    """Literals with words in text[start:end] that no translation marker encloses."""
    found = []
    depth_marked = []  # stack: is this parenthesis a marker's?
    i = start
    while i < end:
        m = TOKEN.match(text, i)
        if m:
            tok = m.group(0)
            if tok.startswith('"') and not any(depth_marked):
                words = CONVERSION.sub('', tok[1:-1])
                if re.search(r'[A-Za-z]{2}', words):
                    found.append(tok)
            i = m.end()
            continue
        c = text[i]
        if c == '(':
            depth_marked.append(bool(MARKER.search(text[max(start, i - 20):i + 1])))
        elif c == ')' and depth_marked:
            depth_marked.pop()
        i += 1
    return found


def strip_preprocessor_definitions(text):
    """Blanks #define lines (with continuations) so macro bodies are not calls."""
    return re.sub(r'^[ \t]*#[ \t]*define(?:[^\n]*\\\n)*[^\n]*', lambda m: ' ' * len(m.group(0)),
                  text, flags=re.M)


def check_source(path, text):
    problems = []
    code = strip_preprocessor_definitions(text)
    names = '|'.join(re.escape(n) for n in MESSAGE_ARGS)
    for m in re.finditer(r'(?<![A-Za-z0-9_])(' + names + r')\s*\(', code):
        line_start = code.rfind('\n', 0, m.start()) + 1
        if m.start() == line_start:
            continue  # a definition: the name starts the line
        before = code[line_start:m.start()]
        if re.search(r'(?:^|\s)(?:static\s+)?(?:gboolean|void|char|int)\s*\**\s*$', before):
            continue  # a declaration
        spans = call_args(code, m.end() - 1)
        index = MESSAGE_ARGS[m.group(1)]
        if index >= len(spans):
            continue
        for literal in unmarked_literals(code, *spans[index]):
            if (path, literal) in ALLOWED:
                continue
            line = code.count('\n', 0, spans[index][0]) + 1
            problems.append(f'{path}:{line}: {m.group(1)}: {literal} is not marked with _()')
    return problems


def sources(root):
    for top in ('core', 'ui', 'app'):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if name.endswith('.c'):
                    full = os.path.join(dirpath, name)
                    rel = os.path.relpath(full, root)
                    if not SKIP_FILES.match(rel):
                        yield rel, full


def self_test():
    bad = 'g_set_error (error, D, C, "the file %s is broken", name);'
    good = ['g_set_error (error, D, C, _("the file %s is broken"), name);',
            'g_set_error (error, D, C, "%s: %s", a, b);',
            'bpw_plot_legend_add (&l, K, NULL, cond ? _("meets") : _("fails"));',
            'bpw_memo_page_heading (&p, 1, C_("memo", "Inputs"));']
    ok = len(check_source('x.c', 'void f (void)\n{\n  ' + bad + '\n}\n')) == 1
    for g in good:
        ok = ok and not check_source('x.c', 'void f (void)\n{\n  ' + g + '\n}\n')
    return ok


def main():
    root = os.environ.get('BPW_SOURCE_ROOT') or os.path.join(os.path.dirname(__file__), '..', '..')
    n = 0
    failed = 0

    n += 1
    if self_test():
        print(f'ok {n} - the scan flags an unmarked message and accepts marked ones')
    else:
        print(f'not ok {n} - the scan flags an unmarked message and accepts marked ones')
        failed += 1

    problems = []
    files = 0
    for rel, full in sources(root):
        with open(full, encoding='utf-8') as f:
            problems += check_source(rel, f.read())
        files += 1
    n += 1
    if problems:
        print(f'not ok {n} - every user-visible message literal in {files} files is marked')
        for p in problems:
            print(f'# {p}')
        failed += 1
    else:
        print(f'ok {n} - every user-visible message literal in {files} files is marked')

    print(f'1..{n}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
