"""The bundled simulator (docs/simulator.md): scenarios built from claims (build.py), their
calibration and verdicts (predict.py) on the deterministic bottleneck bound and a closed
multi-server station (chains.py), the negative controls every verdict is tried against
(controls.py), and the Universal Scalability Law reported beside any series (usl.py). Pure
functions of their parameters."""
