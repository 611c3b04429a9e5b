"""Median nanoseconds of `Registry.show_resource` (run by benches/python.rs).

Usage: show_resource.py HOME NAME CALLS — prints one integer.
"""

import statistics
import sys
import time

from resource_host import Registry

home, name, calls = sys.argv[1], sys.argv[2], int(sys.argv[3])
registry = Registry(home=home)
registry.show_resource(name)  # the first call opens what later ones reuse
times = []
for _ in range(calls):
    start = time.perf_counter_ns()
    registry.show_resource(name)
    times.append(time.perf_counter_ns() - start)
print(int(statistics.median(times)))
