#!/usr/bin/env python3
"""Rewrites every block of results/*/README.md marked `<!-- generated: python3 scripts/X.py
ARGS -->` ... `<!-- end generated -->` with what that command prints now, and the folder's
claims.csv with what it prints given `--claims-csv` (for the scripts that keep a claims
ledger; scripts/ledger.py). Run from the repository root after regenerating results;
tests/it/ledgers.rs checks they agree.

    python3 scripts/refresh_ledgers.py

Uses only the standard library.
"""
import glob
import os
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
    for m in BLOCK.finditer(new):
        claims = subprocess.run(m.group(2).split() + ["--claims-csv"], capture_output=True, text=True,
                                check=True).stdout
        if claims:
            path = os.path.join(os.path.dirname(readme), "claims.csv")
            if not os.path.exists(path) or open(path).read() != claims:
                open(path, "w").write(claims)
                print(f"wrote {path}")
