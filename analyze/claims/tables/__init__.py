"""Before/after figures in tables: pipe and aligned tables (read.py), the kernel test robot's
(lkp.py), `perf stat` blocks (perf_stat.py) and tables on their side (side_rows.py)."""
