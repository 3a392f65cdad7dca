#!/usr/bin/env python3
"""Generates src/domain/disposable_domains.txt: the throwaway-address domains an
organization with `disallow_disposable_email_addresses` refuses, one per line, sorted.

Source: PyPI `disposable-email-domains` (CC0), the list Zulip's server checks. Fetch it
into a scratch folder outside the repository and run:

    mkdir -p /tmp/dispo && cd /tmp/dispo
    pip download --no-deps -d . disposable-email-domains==0.0.293 && unzip -o disposable_email_domains-*.whl
    python3 scripts/gen-disposable-domains.py /tmp/dispo > src/domain/disposable_domains.txt

The package's module is parsed as a literal (never executed).
"""

import ast
import os
import sys


def main(source_dir):
    path = os.path.join(source_dir, "disposable_email_domains", "__init__.py")
    tree = ast.parse(open(path, encoding="utf-8").read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "blocklist" for t in node.targets):
            domains = ast.literal_eval(node.value)
            break
    else:
        sys.exit(f"{path}: no `blocklist` literal")
    if len(domains) < 1000:
        sys.exit(f"{path}: only {len(domains)} domains")
    for domain in sorted({d.strip().lower() for d in domains if d.strip()}):
        print(domain)


if __name__ == "__main__":
    main(sys.argv[1])
