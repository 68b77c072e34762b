#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""reStructuredText syntax check of kernel documentation, without Sphinx.

Usage: rstcheck.py FILE.rst [NAME]

Parses FILE with docutils, the Sphinx roles and directives the kernel uses
standing in as no-ops, and prints every message of level WARNING or above
as "NAME: LEVEL: message" (NAME defaults to FILE, without line numbers so
that two versions of a file can be compared). Exits 0 even with messages:
the caller compares; 2 if docutils is missing.
"""

import io
import sys

try:
    from docutils import nodes, utils
    from docutils.core import publish_doctree
    from docutils.parsers.rst import Directive, directives, roles
except ImportError:
    print('rstcheck: python3-docutils is not installed', file=sys.stderr)
    sys.exit(2)

SPHINX_ROLES = ('c:type', 'c:func', 'c:member', 'c:macro', 'c:data', 'c:expr', 'ref',
                'doc', 'file', 'manpage', 'kbd', 'envvar', 'option', 'term', 'abbr')
SPHINX_DIRECTIVES = ('kernel-doc', 'toctree', 'c:function', 'c:type', 'c:struct',
                     'c:macro', 'code-block', 'only', 'kernel-figure', 'kernel-include',
                     'kernel-render', 'kernel-abi', 'kernel-feat', 'tabularcolumns',
                     'flat-table', 'seealso', 'glossary', 'index', 'highlight',
                     'literalinclude', 'cssclass', 'rst-class')


def no_op_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    return [nodes.literal(rawtext, utils.unescape(text))], []


class NoOpDirective(Directive):
    has_content = True
    optional_arguments = 10
    final_argument_whitespace = True
    option_spec = None

    def run(self):
        return []


class AnyOptions(dict):
    """Accept every option name, with or without a value."""

    def __getitem__(self, key):
        return directives.unchanged


NoOpDirective.option_spec = AnyOptions()


def main():
    if len(sys.argv) == 2 and sys.argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        sys.exit(0)
    if len(sys.argv) not in (2, 3):
        print('usage: rstcheck.py FILE.rst [NAME]', file=sys.stderr)
        sys.exit(2)
    path = sys.argv[1]
    name = sys.argv[2] if len(sys.argv) == 3 else path
    for r in SPHINX_ROLES:
        roles.register_local_role(r, no_op_role)
    for d in SPHINX_DIRECTIVES:
        directives.register_directive(d, NoOpDirective)
    with open(path) as f:
        text = f.read()
    # Parser messages end up in the tree, those of the transforms
    # (substitutions, references) in transform_messages.
    doc = publish_doctree(text, source_path=path, settings_overrides={
        'report_level': 2, 'halt_level': 5, 'warning_stream': io.StringIO(),
        'raw_enabled': False})
    msgs = set()
    for msg in list(doc.findall(nodes.system_message)) + doc.transform_messages:
        if msg['level'] < 2:
            continue
        body = msg.children[0].astext() if msg.children else msg.astext()
        msgs.add('%s: %s: %s' % (name, msg['type'], ' '.join(body.split())))
    for m in sorted(msgs):
        print(m)

if __name__ == '__main__':
    main()
