"""The jobs: what each patchperf command does, from sources to the store to a result, as
library functions the CLI and the TUI call (ingest, analyze files, refresh, verdicts, sync,
demo), and where analysis runs (worker processes, a Dask cluster)."""
