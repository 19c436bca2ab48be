#!/usr/bin/env python3
"""Rewrites every block of results/*/README.md marked `<!-- generated: python3 scripts/X.py
ARGS -->` ... `<!-- end generated -->` with what that command prints now (run from the
repository root after regenerating results; tests/ledgers.rs checks they agree).

    python3 scripts/refresh_ledgers.py

Uses only the standard library.
"""
import glob
import re
import subprocess

BLOCK = re.compile(r"(<!-- generated: (python3 scripts/[^>]*?) -->\n)(.*?)(<!-- end generated -->)", re.S)
for readme in sorted(glob.glob("results/*/README.md")):
    text = open(readme).read()

    def rerun(m):
        out = subprocess.run(m.group(2).split(), capture_output=True, text=True, check=True).stdout
        return m.group(1) + out + m.group(4)

    new = BLOCK.sub(rerun, text)
    if new != text:
        open(readme, "w").write(new)
        print(f"refreshed {readme}")
