"""The bundled simulator (docs/simulator.md): scenarios built from claims (build.py), their
calibration and verdicts (predict.py) on the deterministic bottleneck bound and a closed
multi-server station, the Universal Scalability Law reported beside any series (usl.py), and
models the verdicts do not use yet: birth–death lock chains (chains.py) and a `heapq`
discrete-event engine (des.py). Pure functions of their parameters (and a seed)."""
