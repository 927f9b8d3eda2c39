"""Shell commands and loops written in mail (commands.py, loops.py) and what their variables
name (conditions.py): the conditions a claim varies, and a scenario's workload. Read with
shlex, never run."""
