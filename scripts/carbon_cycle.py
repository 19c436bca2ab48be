#!/usr/bin/env python3
"""Writes examples/carbon/caiso-2023-daily.csv.gz: a synthetic carbon-intensity series that
repeats one day, hour by hour, for 400 days from time 0, time 0 being local midnight.

The day is California's (CAISO) mean daily cycle of 2023: each local hour's mean over the
year of Electricity Maps' hourly direct carbon intensity for zone US-CAL-CISO
("Carbon Intensity gCO2eq/kWh (direct)", 8,760 hours, as shipped in HewlettPackard/green-dcc,
data/carbon_intensity/US-CAL-CISO/2023/US-CAL-CISO_2023_hourly.csv), local hour = UTC - 8
(Pacific standard time all year). The year's mean is 193.96 g/kWh, its hours range from
54.47 to 331.67; the daily cycle below runs from 131.4 (noon, solar) to 234.5 (4 am).
Only these 24 figures are taken; nothing else of the data is copied.

Align it with a trace through `carbon_offset`: the seconds from the trace's local midnight
to its time 0 (KTH's SP2 log starts at 14:00:31 local: 50,431).

    python3 scripts/carbon_cycle.py
"""
import gzip
import pathlib

# Mean direct intensity (g CO2 per kWh) by local hour 0..23, CAISO 2023.
DAY = [
    231.8, 231.6, 231.9, 232.1, 234.5, 229.7, 206.7, 174.3, 148.2, 137.0, 134.3, 132.7,
    131.4, 131.4, 135.8, 151.6, 180.5, 209.1, 227.9, 231.8, 232.0, 233.0, 232.9, 232.8,
]
DAYS = 400


def main():
    out = pathlib.Path(__file__).resolve().parent.parent / "examples/carbon/caiso-2023-daily.csv.gz"
    rows = ["time,gco2_per_kwh"] + [f"{3600 * h},{DAY[h % 24]}" for h in range(24 * DAYS)]
    # mtime 0: the same bytes on every run.
    with open(out, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as z:
        z.write(("\n".join(rows) + "\n").encode())
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
