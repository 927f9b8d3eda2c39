"""Before/after figures in lists: captioned blocks, `X -> Y` and `key=value` lines, tool
output (read.py), and changes stated per test without figures (stated.py)."""
